// `make down`: stops everything `make up` started (by recorded PID) and removes what it made on
// the host and the state folder, then checks that nothing is left. Safe to run twice.
import { layout } from "./cluster/layout.js";
import { leftovers } from "./cluster/leftovers.js";
import { stopCluster } from "./cluster/stop.js";
import { errorMessage } from "../../pkg/util/error-message.js";

const say = (line: string) => console.log(`[down] ${line}`);

async function main(): Promise<void> {
  const l = layout();
  await stopCluster(l, say);
  const left = await leftovers(l);
  if (left.length > 0) throw new Error(`still present after down:\n  ${left.join("\n  ")}`);
  say("nothing left behind");
}

main().catch((error: unknown) => {
  console.error(`[down] failed: ${errorMessage(error)}`);
  process.exitCode = 1;
});

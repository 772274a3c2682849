// `make down`: stops everything `make up` started (by recorded PID) and removes what it made on
// the host and the state folder. Safe to run twice.
import { layout } from "./cluster/layout.js";
import { stopCluster } from "./cluster/stop.js";

stopCluster(layout(), (line) => console.log(`[down] ${line}`)).catch((error: unknown) => {
  console.error(`[down] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

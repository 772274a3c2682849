// vitest globalSetup of the `e2e` project: the whole suite on the local cluster, installed as a user
// installs it (operator manifest + KubeVirt CR), once per run. A cluster already up (`make up`) is
// reused and left as it was; one started here is removed afterwards (KVTS_KEEP_CLUSTER=1 keeps it).
import { bringUp } from "../../deploy/local/cluster/bring-up.js";
import { runningProcesses } from "../../deploy/local/cluster/inventory.js";
import { layout } from "../../deploy/local/cluster/layout.js";
import { leftovers } from "../../deploy/local/cluster/leftovers.js";
import { stopCluster } from "../../deploy/local/cluster/stop.js";
import { buildWhatTheClusterRuns } from "../support/cluster-builds.js";

const say = (line: string) => console.log(`[e2e] ${line}`);

export default async function setup(): Promise<() => Promise<void>> {
  const l = layout();
  buildWhatTheClusterRuns(l, { testGuest: true });
  const runningBefore = await runningProcesses(l);
  await bringUp(l, say, { demoVM: false });
  say(runningBefore.length > 0 ? "reusing the running cluster" : "cluster up with KubeVirt installed");

  return async () => {
    if (process.env.KVTS_KEEP_CLUSTER || runningBefore.length > 0) {
      say("leaving the cluster running (make down removes it)");
      return;
    }
    // One line when all went well, so that the test summary stays at the end of the output CI keeps.
    const steps: string[] = [];
    try {
      await stopCluster(l, (line) => steps.push(line));
    } catch (err) {
      steps.forEach(say);
      throw err;
    }
    const left = await leftovers(l);
    if (left.length > 0) throw new Error(`left behind after stopping the cluster:\n  ${left.join("\n  ")}`);
    say(`stopped and removed the cluster (${steps.length} steps: processes, loop devices, state)`);
  };
}

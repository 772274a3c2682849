// vitest globalSetup of the `integration` project: a real control plane for the whole run. A cluster
// that is already up (`make up`) is reused and left as it was; otherwise one is started here and
// removed again afterwards (set KVTS_KEEP_CLUSTER=1 to keep it for the next run).
import { knownProcesses, runningProcesses } from "../../deploy/local/cluster/inventory.js";
import { layout } from "../../deploy/local/cluster/layout.js";
import { leftovers } from "../../deploy/local/cluster/leftovers.js";
import { startControlPlane } from "../../deploy/local/cluster/start.js";
import { stopCluster, stopProcesses } from "../../deploy/local/cluster/stop.js";
import { buildWhatTheClusterRuns } from "../support/cluster-builds.js";

const say = (line: string) => console.log(`[integration] ${line}`);

export default async function setup(): Promise<() => Promise<void>> {
  const l = layout();
  // the component Pods some files run (virt-api, virt-operator) come from the images built from the Dockerfiles
  buildWhatTheClusterRuns(l, { testGuest: false });

  const runningBefore = await runningProcesses(l);
  await startControlPlane(l, say);
  say(
    runningBefore.length > 0
      ? `reusing the running cluster (${runningBefore.join(", ")})`
      : "control plane up",
  );

  return async () => {
    if (process.env.KVTS_KEEP_CLUSTER) {
      say(`KVTS_KEEP_CLUSTER set: leaving the cluster running (make down removes it)`);
      return;
    }
    if (runningBefore.length === 0) {
      await stopCluster(l, say);
      // the cluster was ours from start to end: `down` must have removed every trace of it
      const left = await leftovers(l);
      if (left.length > 0) throw new Error(`left behind after stopping the cluster:\n  ${left.join("\n  ")}`);
      return;
    }
    const startedHere = knownProcesses(l).filter((name) => !runningBefore.includes(name));
    await stopProcesses(l, startedHere, say);
  };
}

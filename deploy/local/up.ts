// `make up`: the one-machine cluster in the background — control plane, node agents, kube-proxy,
// then (when available) KubeVirt. Idempotent: what already runs is left alone.
import { installKubeVirt } from "./cluster/kubevirt.js";
import { layout } from "./cluster/layout.js";
import type { Say } from "./cluster/start.js";
import { startControlPlane, startKubeProxy, startNodeAgents, waitForReadyNodes } from "./cluster/start.js";

const say: Say = (line) => console.log(`[up] ${line}`);

async function main(): Promise<void> {
  const l = layout();
  const controlPlane = await startControlPlane(l, say);
  say(controlPlane.alreadyRunning ? "control plane already running and healthy" : "control plane ready");

  const nodes = await startNodeAgents(l, say);
  if (nodes.started) {
    await waitForReadyNodes(l, say);
    await startKubeProxy(l, say);
    await installKubeVirt(l, say);
  }

  say(`kubeconfig: ${l.adminKubeconfig}`);
  say(`try: export KUBECONFIG=${l.adminKubeconfig} PATH=${l.binDir}:$PATH; kubectl get nodes -o wide`);
  say("stop everything with: make down");
}

main().catch((error: unknown) => {
  console.error(`[up] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

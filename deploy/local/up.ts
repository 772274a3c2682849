// `make up`: the one-machine cluster in the background — control plane, node agents, kube-proxy —
// then KubeVirt through its operator and the demo VM. Idempotent: what already runs is left alone.
import { bringUp } from "./cluster/bring-up.js";
import { layout } from "./cluster/layout.js";
import { describeNodeSize, nodeSizeFromEnv } from "./cluster/node-size.js";
import type { Say } from "./cluster/start.js";
import { errorMessage } from "../../pkg/util/error-message.js";

const say: Say = (line) => console.log(`[up] ${line}`);

async function main(): Promise<void> {
  const l = layout();
  const nodeSize = nodeSizeFromEnv(process.env);
  // declared, not measured; a running node agent keeps the size it started with (make down first)
  say(`node size: ${describeNodeSize(nodeSize)} (declared: NODE_CPUS, NODE_MEMORY, NODE_MAX_PODS)`);
  await bringUp(l, say, { demoVM: true, nodeSize });
  say(`kubeconfig: ${l.adminKubeconfig}`);
  say(
    `try: export KUBECONFIG=${l.adminKubeconfig} PATH=${l.binDir}:$PATH; kubectl get vms; virtctl console demo`,
  );
  say("stop everything with: make down");
}

main().catch((error: unknown) => {
  console.error(`[up] failed: ${errorMessage(error)}`);
  process.exitCode = 1;
});

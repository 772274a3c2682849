// `make up`: the one-machine cluster in the background — control plane, node agents, kube-proxy —
// then KubeVirt through its operator and the demo VM. Idempotent: what already runs is left alone.
import { bringUp } from "./cluster/bring-up.js";
import { layout } from "./cluster/layout.js";
import type { Say } from "./cluster/start.js";

const say: Say = (line) => console.log(`[up] ${line}`);

async function main(): Promise<void> {
  const l = layout();
  await bringUp(l, say, { demoVM: true });
  say(`kubeconfig: ${l.adminKubeconfig}`);
  say(
    `try: export KUBECONFIG=${l.adminKubeconfig} PATH=${l.binDir}:$PATH; kubectl get vms; virtctl console demo`,
  );
  say("stop everything with: make down");
}

main().catch((error: unknown) => {
  console.error(`[up] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

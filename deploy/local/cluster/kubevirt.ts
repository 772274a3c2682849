// HOOK: installing KubeVirt on the local cluster. When the operator and its manifests land,
// `up` applies manifests/kubevirt-operator.yaml and kubevirt-cr.yaml (useEmulation: true, no
// KVM here), waits for the KubeVirt CR to be Available, and starts the demo VM from examples/.
import type { Layout } from "./layout.js";
import type { Say } from "./start.js";

export async function installKubeVirt(_l: Layout, say: Say): Promise<void> {
  say("KubeVirt: not installed yet (hook in deploy/local/cluster/kubevirt.ts)");
}

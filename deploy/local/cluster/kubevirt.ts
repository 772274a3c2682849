// KubeVirt on the local cluster, the way a user installs it: apply the release's operator manifest,
// then the KubeVirt CR (with `useEmulation: true`, since there is no KVM here), wait until the operator
// reports Available and a virt-handler runs on every node, then start the demo VM. Every step is an
// apply or a wait, so running it again changes nothing.
import { join } from "node:path";
import { newKubeVirtCR } from "../../../pkg/virt-operator/resource/generate/components/release.js";
import { binary, type Layout } from "./layout.js";
import { mustRun } from "./run-command.js";
import type { Say } from "./start.js";
import { topology } from "./topology.js";
import { waitFor } from "./wait.js";

export const KUBEVIRT_NAMESPACE = "kubevirt";
export const DEMO_VM = "demo";

const INSTALL_TIMEOUT = "600s";

/** The kubectl built with the cluster, as the admin. */
export function kubectlAs(l: Layout): (args: string[], input?: string) => Promise<string> {
  return (args, input) => mustRun(binary(l, "kubectl"), ["--kubeconfig", l.adminKubeconfig, ...args], input);
}

/**
 * How soon virt-controller takes a node whose virt-handler stopped beating for gone. Upstream hard-codes
 * 5 minutes (beats every minute); a cluster of two simulated nodes is better served by a minute (beats every
 * 10 s), so that a node failure shows while one watches. kubevirt-ts flags beyond upstream, set the upstream
 * way: the KubeVirt CR's customizeComponents.flags.
 */
export const LOCAL_NODE_HEARTBEAT = { timeout: "60s", interval: "10s" };

/** The CR `make up` applies: the release's CR with emulation on and the local heartbeat timings. */
export function localKubeVirtCR(): object {
  const cr = newKubeVirtCR({ namespace: KUBEVIRT_NAMESPACE, pullPolicy: "IfNotPresent", useEmulation: true });
  cr.spec.customizeComponents = {
    flags: {
      controller: { "node-heartbeat-timeout": LOCAL_NODE_HEARTBEAT.timeout },
      handler: { "heartbeat-interval": LOCAL_NODE_HEARTBEAT.interval },
    },
  };
  return cr;
}

/** Operator, CR, Available, one ready virt-handler per node. */
export async function installKubeVirt(l: Layout, say: Say): Promise<void> {
  const kubectl = kubectlAs(l);
  await kubectl(["apply", "-f", join(l.repoRoot, "manifests/release/kubevirt-operator.yaml")]);
  say("KubeVirt: operator manifest applied");
  // Polled rather than `kubectl wait`, which once failed here on a CRD that had no conditions yet.
  await waitFor(
    async () =>
      (await kubectl([
        "get",
        "crd/kubevirts.kubevirt.io",
        "-o",
        `jsonpath={.status.conditions[?(@.type=="Established")].status}`,
      ]).catch(() => "")) === "True",
    { what: "the KubeVirt CRD to be Established", timeoutMs: 60_000, intervalMs: 500 },
  );
  await kubectl(["apply", "-f", "-"], JSON.stringify(localKubeVirtCR()));
  say("KubeVirt: CR applied (useEmulation: true); waiting for the operator to report Available");
  const kv = ["-n", KUBEVIRT_NAMESPACE, "kv", "kubevirt"];
  await kubectl(["wait", ...kv, "--for=condition=Available", `--timeout=${INSTALL_TIMEOUT}`]);
  await waitFor(async () => (await readyHandlers(l)) >= topology.nodes.length, {
    what: `a ready virt-handler on each of the ${topology.nodes.length} nodes`,
    timeoutMs: 300_000,
    intervalMs: 2_000,
  });
  say(`KubeVirt: Available, virt-handler ready on ${topology.nodes.length} nodes`);
}

async function readyHandlers(l: Layout): Promise<number> {
  const out = await kubectlAs(l)([
    "-n",
    KUBEVIRT_NAMESPACE,
    "get",
    "daemonset",
    "virt-handler",
    "-o",
    "jsonpath={.status.numberReady}",
  ]).catch(() => "0");
  return Number(out) || 0;
}

/** Applies examples/vm-demo.yaml and waits for its VMI to run. */
export async function startDemoVM(l: Layout, say: Say): Promise<void> {
  const kubectl = kubectlAs(l);
  await kubectl(["apply", "-f", join(l.repoRoot, "examples/vm-demo.yaml")]);
  say(`demo VM applied; waiting for it to run (the guest boots under TCG)`);
  await waitFor(
    async () =>
      (await kubectl(["get", "vmi", DEMO_VM, "-o", "jsonpath={.status.phase}"]).catch(() => "")) ===
      "Running",
    { what: `VMI ${DEMO_VM} to be Running`, timeoutMs: 300_000, intervalMs: 2_000 },
  );
  say(`demo VM Running: virtctl console ${DEMO_VM}   (leave the console with Ctrl+])`);
}

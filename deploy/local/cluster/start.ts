// Starting the cluster, one idempotent step at a time: a process already running is left alone,
// so `up` after `up` (or after a crash of one component) only starts what is missing.
import { adminClient, answersOk } from "./apiserver-client.js";
import { labelNodeRoles } from "./control-plane-node.js";
import { kubeApiserver, kubeControllerManager, kubeScheduler, etcd } from "./components.js";
import { etcdHealthy, httpHealthz, loopbackHealthz, readyNodes } from "./health.js";
import { enableForwarding, ensureControlPlaneLink } from "./host-network.js";
import type { Layout } from "./layout.js";
import { logFile } from "./layout.js";
import { kubeProxy, nodeAgent, nodeAgentAvailable, nodeAgentMain, writeKubeProxyConfig } from "./nodes.js";
import { defaultNodeSize, type NodeSize } from "./node-size.js";
import { installMultusAPI } from "./multus.js";
import { missingBinaries, prepareState } from "./state.js";
import type { ProcessSpec } from "./supervisor.js";
import { runningPid, startProcess } from "./supervisor.js";
import { topology } from "./topology.js";
import { waitFor } from "./wait.js";

export type Say = (line: string) => void;

const STARTUP_TIMEOUT_MS = 120_000;

/** Starts `spec` unless it runs already, then waits for `ready`; true when it was started now. */
async function ensureRunning(
  l: Layout,
  spec: ProcessSpec,
  ready: () => Promise<boolean>,
  say: Say,
): Promise<boolean> {
  const running = await runningPid(l, spec.name);
  if (running === undefined) {
    const pid = await startProcess(l, spec);
    say(`started ${spec.name} (pid ${pid}, log ${logFile(l, spec.name)})`);
  }
  await waitFor(ready, {
    what: `${spec.name} to become ready`,
    timeoutMs: STARTUP_TIMEOUT_MS,
    logPath: logFile(l, spec.name),
  });
  return running === undefined;
}

/** etcd, kube-apiserver, kube-controller-manager, kube-scheduler; true when all were running already. */
export async function startControlPlane(l: Layout, say: Say): Promise<{ alreadyRunning: boolean }> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "the local cluster needs root: it adds a link, network namespaces, nftables rules and mounts",
    );
  }
  const missing = missingBinaries(l);
  if (missing.length > 0) {
    throw new Error(
      `missing binaries in ${l.binDir}: ${missing.join(", ")}; run deploy/local/build-binaries.sh`,
    );
  }
  await prepareState(l);
  await ensureControlPlaneLink();
  await enableForwarding(l.stateDir);

  const client = await adminClient(l);
  const started = [
    await ensureRunning(l, etcd(l), etcdHealthy, say),
    await ensureRunning(l, kubeApiserver(l), () => answersOk(client, "/readyz"), say),
    await ensureRunning(l, kubeControllerManager(l), () => loopbackHealthz(10257), say),
    await ensureRunning(l, kubeScheduler(l), () => loopbackHealthz(10259), say),
  ];
  // before any node runs a pod: multus reads NetworkAttachmentDefinitions with its own identity
  await installMultusAPI(l);
  return { alreadyRunning: !started.some(Boolean) };
}

/** A node agent per node, each declaring `size`; false when the node agent is not in this checkout yet. */
export async function startNodeAgents(
  l: Layout,
  say: Say,
  size: NodeSize = defaultNodeSize,
): Promise<{ started: boolean }> {
  if (!nodeAgentAvailable(l)) {
    say(`nodes NOT started: ${nodeAgentMain(l)} does not exist yet (control plane only)`);
    return { started: false };
  }
  for (const node of topology.nodes) {
    const spec = nodeAgent(l, node, size);
    if ((await runningPid(l, spec.name)) === undefined) {
      say(`started ${spec.name} (pid ${await startProcess(l, spec)}, log ${logFile(l, spec.name)})`);
    }
  }
  return { started: true };
}

/** kube-proxy, once the Node it is named after exists, so it starts with that node's addresses. */
export async function startKubeProxy(l: Layout, say: Say): Promise<void> {
  await writeKubeProxyConfig(l);
  await ensureRunning(l, kubeProxy(l), () => httpHealthz(10256), say);
}

/** Waits for every node to be Ready, then marks node01 as the control-plane node. */
export async function waitForReadyNodes(l: Layout, say: Say, timeoutMs = 180_000): Promise<void> {
  const client = await adminClient(l);
  const wanted = topology.nodes.map((node) => node.name);
  await waitFor(
    async () => {
      const ready = await readyNodes(client);
      return wanted.every((name) => ready.includes(name));
    },
    {
      what: `nodes ${wanted.join(", ")} to be Ready`,
      timeoutMs,
      intervalMs: 1_000,
      logPath: logFile(l, nodeAgent(l, topology.nodes[0]).name),
    },
  );
  say(`nodes Ready: ${wanted.join(", ")}`);
  await labelNodeRoles(client);
}

// Stopping the cluster: every process by its recorded PID (SIGTERM, grace, SIGKILL) in reverse
// start order, then whatever it left on the host, then the state folder. Each step tolerates
// finding nothing, so `down` after `down` (or after a half-failed `up`) is harmless.
import { existsSync } from "node:fs";
import { readdir, rm, rmdir } from "node:fs/promises";
import { dirname } from "node:path";
import { processTree } from "./cgroup.js";
import { controlPlane } from "./components.js";
import { knownProcesses } from "./inventory.js";
import { removeControlPlaneLink, restoreForwarding } from "./host-network.js";
import type { Layout } from "./layout.js";
import { binary } from "./layout.js";
import { detachLoopDevices } from "./loop-devices.js";
import { unmountAllUnder } from "./mounts.js";
import { removeNodeNetworks } from "./node-cleanup.js";
import { kubeProxy, nodeAgent } from "./nodes.js";
import { runCommand } from "./run-command.js";
import { removeSecondaryLeases } from "./secondary-networks.js";
import type { Say } from "./start.js";
import { stopProcess } from "./supervisor.js";
import { topology } from "./topology.js";

export async function stopCluster(l: Layout, say: Say): Promise<void> {
  await stopKubeProxy(l, say);
  for (const node of topology.nodes) await stopNamed(l, nodeAgent(l, node).name, say, 30_000);
  await removeNodeNetworks();
  // what the node agents' DELs did not release (an agent killed mid-way): no node is left to use it
  await removeSecondaryLeases();
  for (const spec of controlPlane(l).reverse()) await stopNamed(l, spec.name, say);
  await stopUnrecorded(l, say);
  await unmountAllUnder(l.stateDir);
  // after the node agents: no container holds a device any more
  await detachLoopDevices(l, say);
  await removeControlPlaneLink();
  await restoreForwarding(l.stateDir);
  await removeState(l);
  say(`removed the cluster's state from ${l.stateDir}`);
}

/** The state `up` wrote, then the folder itself if nothing else lives there. */
async function removeState(l: Layout): Promise<void> {
  for (const path of [
    l.pkiDir,
    l.etcdDataDir,
    l.logsDir,
    l.pidsDir,
    l.configDir,
    l.nodesDir,
    l.storageDir,
    l.loopDevicesFile,
    l.adminKubeconfig,
  ]) {
    await rm(path, { recursive: true, force: true });
  }
  try {
    await rmdir(l.stateDir);
  } catch {
    // other files are kept there (not ours to delete) or it is gone already
  }
}

/** Stops just the named processes (latest started first), leaving state and host network alone. */
export async function stopProcesses(l: Layout, names: string[], say: Say): Promise<void> {
  for (const name of knownProcesses(l).reverse()) {
    if (names.includes(name))
      await stopNamed(l, name, say, name.startsWith("node-agent") ? 30_000 : undefined);
  }
}

async function stopNamed(l: Layout, name: string, say: Say, graceMs?: number): Promise<void> {
  if (await stopProcess(l, name, graceMs)) say(`stopped ${name}`);
}

/** kube-proxy leaves its nftables tables behind on exit; its own --cleanup mode removes them. */
async function stopKubeProxy(l: Layout, say: Say): Promise<void> {
  await stopNamed(l, kubeProxy(l).name, say);
  if (existsSync(binary(l, "kube-proxy"))) {
    await runCommand(binary(l, "kube-proxy"), ["--cleanup"]);
  }
}

/**
 * Process trees of this checkout whose PID file is gone (a state folder deleted by hand, a
 * crash between start and record): their members are still ours, and are stopped the same way.
 */
async function stopUnrecorded(l: Layout, say: Say): Promise<void> {
  const probe = await processTree(l.stateDir, "probe");
  if (!probe) return;
  const checkoutDir = dirname(probe.dir);
  if (!existsSync(checkoutDir)) return;
  for (const entry of await readdir(checkoutDir, { withFileTypes: true })) {
    if (entry.isDirectory()) await stopNamed(l, entry.name, say, 1_000);
  }
  if (existsSync(checkoutDir)) say(`warning: ${checkoutDir} still holds processes`);
}

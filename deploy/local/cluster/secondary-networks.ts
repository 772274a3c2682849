// The local cluster's secondary networks, for pods' extra interfaces through multus: host bridges the node
// agents make (runtime/cluster-network-config.ts) and the addresses NetworkAttachmentDefinitions on them
// hand out. Tests write their NADs with `bridgeNetworkConfig`; `down` removes the host-local reservations
// such NADs leave in host-local's default folder, which both nodes share (right for one L2 segment).
import { readFile, readdir, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { LOCAL_CLUSTER_NETWORK, SECONDARY_RANGE } from "../node-agent/runtime/cluster-network-config.js";
import { cidrContains, parseCidr, parseIpv4 } from "../node-agent/runtime/ipv4.js";

export { SECONDARY_RANGE };

export interface SecondaryNetwork {
  /** The host bridge a NAD's bridge plugin attaches to. */
  bridge: string;
  /** Its addresses (a NAD's host-local range lies inside). */
  subnet: string;
}

/** kvts-sec1 (10.245.1.0/24) and kvts-sec2 (10.245.2.0/24). */
export const SECONDARY_NETWORKS: readonly SecondaryNetwork[] = (
  LOCAL_CLUSTER_NETWORK.secondaryBridges ?? []
).map((bridge) => ({ bridge: bridge.name, subnet: bridge.subnet }));

/** host-local's dataDir when a NAD names none: shared by every node agent of this machine. */
export const HOST_LOCAL_DEFAULT_DIR = "/var/lib/cni/networks";

export function secondaryNetwork(bridge: string): SecondaryNetwork {
  const network = SECONDARY_NETWORKS.find((candidate) => candidate.bridge === bridge);
  if (!network) {
    const known = SECONDARY_NETWORKS.map((n) => n.bridge).join(", ");
    throw new Error(`"${bridge}" is not a secondary bridge of the local cluster (known: ${known})`);
  }
  return network;
}

/**
 * A NetworkAttachmentDefinition's spec.config for a secondary bridge: the reference bridge plugin on it
 * (no gateway address on the host bridge) and host-local on its subnet, or on `subnet` when given (a part
 * of the bridge's subnet, so that two networks on one bridge do not hand out the same address).
 */
export function bridgeNetworkConfig(networkName: string, bridgeName: string, subnet?: string): string {
  const network = secondaryNetwork(bridgeName);
  const range = subnet ?? network.subnet;
  const outer = parseCidr(network.subnet);
  const inner = parseCidr(range);
  const last = inner.network + 2 ** (32 - inner.prefixLength) - 1;
  if (!cidrContains(outer, inner.network) || !cidrContains(outer, last)) {
    throw new Error(`subnet ${range} is not a part of ${network.bridge}'s ${network.subnet}`);
  }
  return JSON.stringify({
    cniVersion: "1.0.0",
    name: networkName,
    type: "bridge",
    bridge: network.bridge,
    ipam: { type: "host-local", ranges: [[{ subnet: range }]] },
  });
}

/** host-local reservations (one file per address) of the secondary range in host-local's default folder. */
export async function secondaryLeases(dir = HOST_LOCAL_DEFAULT_DIR): Promise<string[]> {
  const found: string[] = [];
  for (const network of await entries(dir)) {
    for (const name of await entries(join(dir, network))) {
      if (inSecondaryRange(name)) found.push(join(dir, network, name));
    }
  }
  return found.sort();
}

/**
 * Removes the secondary range's reservations and host-local's bookkeeping beside them; a network folder
 * that then holds nothing else goes too, and the parent folders when they end up empty.
 */
export async function removeSecondaryLeases(dir = HOST_LOCAL_DEFAULT_DIR): Promise<void> {
  for (const network of await entries(dir)) {
    const folder = join(dir, network);
    let removed = 0;
    for (const name of await entries(folder)) {
      const file = join(folder, name);
      const ours =
        inSecondaryRange(name) ||
        (name.startsWith("last_reserved_ip.") &&
          inSecondaryRange(await readFile(file, "utf8").catch(() => "")));
      if (ours) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    const rest = await entries(folder);
    if (removed > 0 && rest.every((name) => name === "lock"))
      await rm(folder, { recursive: true, force: true });
  }
  // host-local made these folders for the suite's networks; anyone else's content keeps them
  await rmdir(dir).catch(() => undefined);
  if (dir === HOST_LOCAL_DEFAULT_DIR) await rmdir(dirname(dir)).catch(() => undefined);
}

function inSecondaryRange(text: string): boolean {
  try {
    return cidrContains(parseCidr(SECONDARY_RANGE), parseIpv4(text.trim()));
  } catch {
    return false;
  }
}

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return [];
    throw error;
  });
}

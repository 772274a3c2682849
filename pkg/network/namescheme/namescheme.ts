import { createHash } from "node:crypto";
import type { Network, VirtualMachineInstanceNetworkInterface } from "../../api/generated/v1.js";

// Pod interface names per VMI network (upstream pkg/network/namescheme): the primary (pod or
// default multus) network is the pod's eth0; each secondary multus network gets "pod" plus the
// first 11 hex digits of the sha256 of its name, short enough that "<name>-nic" still fits the
// kernel's 15-character limit. Pods made by older KubeVirt releases name them net1, net2, ... in
// network order (the ordinal scheme); whoever reads a pod's links or network-status honours both.

export const PRIMARY_POD_INTERFACE_NAME = "eth0";
export const HASHED_IFACE_PREFIX = "pod";
const MAX_IFACE_NAME_LEN = 11;
const ORDINAL_IFACE_PREFIX = "net";

export function isSecondaryMultusNetwork(network: Network): boolean {
  return network.multus !== undefined && network.multus.default !== true;
}

/** The VMI's primary network: the first one that is not a secondary multus network. */
export function lookUpDefaultNetwork(networks: readonly Network[]): Network | undefined {
  return networks.find((network) => !isSecondaryMultusNetwork(network));
}

export function generateHashedInterfaceName(networkName: string): string {
  const digest = createHash("sha256").update(networkName).digest("hex");
  return HASHED_IFACE_PREFIX + digest.slice(0, MAX_IFACE_NAME_LEN);
}

function withPrimary(networks: readonly Network[], scheme: Map<string, string>): Map<string, string> {
  const primary = lookUpDefaultNetwork(networks);
  if (primary) scheme.set(primary.name, PRIMARY_POD_INTERFACE_NAME);
  return scheme;
}

/** Network name → pod interface name, for every network of the VMI. */
export function createHashedNetworkNameScheme(networks: readonly Network[]): Map<string, string> {
  const secondary = networks.filter(isSecondaryMultusNetwork);
  return withPrimary(
    networks,
    new Map(secondary.map((network) => [network.name, generateHashedInterfaceName(network.name)])),
  );
}

/** The old scheme: net1, net2, ... for the secondary networks in order, eth0 for the primary. */
export function createOrdinalNetworkNameScheme(networks: readonly Network[]): Map<string, string> {
  const secondary = networks.filter(isSecondaryMultusNetwork);
  return withPrimary(
    networks,
    new Map(secondary.map((network, index) => [network.name, `${ORDINAL_IFACE_PREFIX}${index + 1}`])),
  );
}

export function ordinalPodInterfaceName(networkName: string, networks: readonly Network[]): string {
  return createOrdinalNetworkNameScheme(networks).get(networkName) ?? "";
}

/** net<digits>; eth0 is not ordinal. */
export function ordinalSecondaryInterfaceName(name: string): boolean {
  return /^net\d+$/.test(name);
}

/** Whether a pod's network-status names any interface the ordinal way. */
export function podHasOrdinalInterfaceName(networkStatuses: readonly { interface?: string }[]): boolean {
  return networkStatuses.some((status) => ordinalSecondaryInterfaceName(status.interface ?? ""));
}

/** The scheme the pod was created with, as its network-status shows it. */
export function createFromNetworkStatuses(
  networks: readonly Network[],
  networkStatuses: readonly { interface?: string }[],
): Map<string, string> {
  return podHasOrdinalInterfaceName(networkStatuses)
    ? createOrdinalNetworkNameScheme(networks)
    : createHashedNetworkNameScheme(networks);
}

/** The hashed name of a secondary network; the primary's is what virt-controller reported, else eth0. */
export function hashedPodInterfaceName(
  network: Network,
  statuses: readonly VirtualMachineInstanceNetworkInterface[] = [],
): string {
  if (isSecondaryMultusNetwork(network)) return generateHashedInterfaceName(network.name);
  const reported = statuses.find((status) => status.name === network.name)?.podInterfaceName;
  return reported || PRIMARY_POD_INTERFACE_NAME;
}

/** The scheme with the primary network's pod interface as virt-controller reported it (it may not be eth0). */
export function updatePrimaryPodIfaceNameFromVMIStatus(
  scheme: ReadonlyMap<string, string>,
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[],
): Map<string, string> {
  const updated = new Map(scheme);
  const primary = lookUpDefaultNetwork(networks);
  const reported = statuses.find((status) => status.name === primary?.name)?.podInterfaceName;
  if (primary && reported) updated.set(primary.name, reported);
  return updated;
}

/** Whether the VMI's secondary pod interfaces use ordinal names; unknown counts as yes (the safe guess). */
export function hasOrdinalSecondaryIfaces(
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[],
): boolean {
  const secondary = networks.filter(isSecondaryMultusNetwork);
  if (secondary.length === 0) return false;
  for (const network of secondary) {
    const reported = statuses.find((status) => status.name === network.name)?.podInterfaceName;
    if (reported) return ordinalSecondaryInterfaceName(reported);
  }
  return true;
}

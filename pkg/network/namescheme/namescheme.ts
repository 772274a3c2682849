import { createHash } from "node:crypto";
import type { Network } from "../../api/generated/v1.js";

// Pod interface names per VMI network (upstream pkg/network/namescheme): the primary (pod or
// default multus) network is the pod's eth0; each secondary multus network gets "pod" plus the
// first 11 hex digits of the sha256 of its name, short enough that "<name>-nic" still fits the
// kernel's 15-character limit.

export const PRIMARY_POD_INTERFACE_NAME = "eth0";
export const HASHED_IFACE_PREFIX = "pod";
const MAX_IFACE_NAME_LEN = 11;

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

/** Network name → pod interface name, for every network of the VMI. */
export function createHashedNetworkNameScheme(networks: readonly Network[]): Map<string, string> {
  const scheme = new Map<string, string>();
  for (const network of networks) {
    if (isSecondaryMultusNetwork(network))
      scheme.set(network.name, generateHashedInterfaceName(network.name));
  }
  const primary = lookUpDefaultNetwork(networks);
  if (primary) scheme.set(primary.name, PRIMARY_POD_INTERFACE_NAME);
  return scheme;
}

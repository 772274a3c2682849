import type { Network } from "../../api/generated/v1.js";
import { HASHED_IFACE_PREFIX, isSecondaryMultusNetwork } from "../namescheme/namescheme.js";

// Names of the links KubeVirt creates in the pod's network namespace (upstream pkg/network/link/names.go).

const TAP_NAME_FOR_PRIMARY_IFACE = "tap0";

/** `tap0` for the primary network; `tap<hash>` (the hashed pod interface name minus "pod") otherwise. */
export function generateTapDeviceName(podInterfaceName: string, network: Network): string {
  if (isSecondaryMultusNetwork(network)) return "tap" + podInterfaceName.slice(3);
  return TAP_NAME_FOR_PRIMARY_IFACE;
}

/** `k6t-eth0` for eth0, `k6t-<hash>` for a hashed secondary interface. */
export function generateBridgeName(podInterfaceName: string): string {
  return "k6t-" + trimHashedPrefix(podInterfaceName);
}

/** The new name of a pod interface the bridge binding enslaves (`eth0-nic`): eth0 itself becomes the
 * placeholder that keeps the pod IP, so that CNI still finds the interface it configured. */
export function generateNewBridgedVmiInterfaceName(originalPodInterfaceName: string): string {
  return `${trimHashedPrefix(originalPodInterfaceName)}-nic`;
}

function trimHashedPrefix(name: string): string {
  return name.startsWith(HASHED_IFACE_PREFIX) ? name.slice(HASHED_IFACE_PREFIX.length) : name;
}

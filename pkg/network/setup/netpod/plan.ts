import type {
  Interface as VMIInterface,
  Network,
  VirtualMachineInstanceNetworkInterface,
} from "../../../api/generated/v1.js";
import { generateTapDeviceName } from "../../link/names.js";
import {
  createHashedNetworkNameScheme,
  createOrdinalNetworkNameScheme,
  isSecondaryMultusNetwork,
  ordinalSecondaryInterfaceName,
  updatePrimaryPodIfaceNameFromVMIStatus,
} from "../../namescheme/namescheme.js";
import type { BindingLinkNames } from "./bridge.js";

// Which VMI interfaces the pod network setup handles, and the names of their links.

export type PodBinding = "bridge" | "masquerade";

export interface InterfacePlan extends BindingLinkNames {
  binding: PodBinding;
  vmiIface: VMIInterface;
  network: Network;
}

const NOT_YET_SUPPORTED = ["passtBinding", "binding", "slirp", "macvtap", "passt"] as const;

/**
 * Whether the pod names its secondary interfaces net1, net2, ... (made by an older KubeVirt): upstream
 * looks at the pod's links; before they are read, what virt-controller reported for the secondary
 * networks (their podInterfaceName, from multus' network-status) tells the same.
 */
function usesOrdinalNames(
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[],
  podLinkNames: readonly string[] | undefined,
): boolean {
  if (podLinkNames) return podLinkNames.some(ordinalSecondaryInterfaceName);
  const secondary = new Set(networks.filter(isSecondaryMultusNetwork).map((network) => network.name));
  return statuses.some(
    (status) =>
      secondary.has(status.name ?? "") && ordinalSecondaryInterfaceName(status.podInterfaceName ?? ""),
  );
}

/** Network name → pod interface name; the primary's as virt-controller reported it (it may not be eth0). */
export function podInterfaceNames(
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[] = [],
  podLinkNames?: readonly string[],
): Map<string, string> {
  const scheme = usesOrdinalNames(networks, statuses, podLinkNames)
    ? createOrdinalNetworkNameScheme(networks)
    : createHashedNetworkNameScheme(networks);
  return updatePrimaryPodIfaceNameFromVMIStatus(scheme, networks, statuses);
}

/** The interfaces to prepare, in VMI order; SR-IOV ones need no pod network setup and are skipped. */
export function planInterfaces(
  interfaces: readonly VMIInterface[],
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[] = [],
  podLinkNames?: readonly string[],
): InterfacePlan[] {
  const podIfaceNames = podInterfaceNames(networks, statuses, podLinkNames);

  const plans: InterfacePlan[] = [];
  interfaces.forEach((vmiIface, vmiIfaceIndex) => {
    if (vmiIface.sriov !== undefined || vmiIface.state === "absent") return;
    const network = networks.find((candidate) => candidate.name === vmiIface.name);
    const podIfaceName = podIfaceNames.get(vmiIface.name);
    if (!network || !podIfaceName) throw new Error(`no network matching with iface ${vmiIface.name}`);
    const binding = bindingOf(vmiIface);
    const tapName = generateTapDeviceName(podIfaceName, network);
    plans.push({
      binding,
      vmiIface,
      network,
      podIfaceName,
      tapName,
      vmiIfaceIndex,
      networkName: vmiIface.name,
    });
  });
  return plans;
}

function bindingOf(vmiIface: VMIInterface): PodBinding {
  if (vmiIface.bridge !== undefined) return "bridge";
  if (vmiIface.masquerade !== undefined) return "masquerade";
  const other = NOT_YET_SUPPORTED.find((key) => vmiIface[key] !== undefined);
  if (other) throw new Error(`interface ${vmiIface.name}: the ${other} binding is not supported yet`);
  throw new Error(`undefined binding method: ${JSON.stringify(vmiIface)}`);
}

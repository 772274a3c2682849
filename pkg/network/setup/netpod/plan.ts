import type {
  Interface as VMIInterface,
  Network,
  VirtualMachineInstanceNetworkInterface,
} from "../../../api/generated/v1.js";
import { generateTapDeviceName } from "../../link/names.js";
import { createHashedNetworkNameScheme, lookUpDefaultNetwork } from "../../namescheme/namescheme.js";
import type { BindingLinkNames } from "./bridge.js";

// Which VMI interfaces the pod network setup handles, and the names of their links.

export type PodBinding = "bridge" | "masquerade";

export interface InterfacePlan extends BindingLinkNames {
  binding: PodBinding;
  vmiIface: VMIInterface;
  network: Network;
}

const NOT_YET_SUPPORTED = ["passtBinding", "binding", "slirp", "macvtap", "passt"] as const;

/** The interfaces to prepare, in VMI order; SR-IOV ones need no pod network setup and are skipped. */
export function planInterfaces(
  interfaces: readonly VMIInterface[],
  networks: readonly Network[],
  statuses: readonly VirtualMachineInstanceNetworkInterface[] = [],
): InterfacePlan[] {
  const podIfaceNames = createHashedNetworkNameScheme(networks);
  const primary = lookUpDefaultNetwork(networks);
  const primaryStatusName = statuses.find((status) => status.name === primary?.name)?.podInterfaceName;
  if (primary && primaryStatusName) podIfaceNames.set(primary.name, primaryStatusName);

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

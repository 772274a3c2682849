// The VMI's `status.interfaces` as virt-controller sees them from the launcher Pod (upstream
// pkg/network/controllers/vmi.go UpdateVMIStatus): the primary network sits on the interface multus
// marks as default (eth0 when it says nothing), each secondary multus network on the pod interface
// its name scheme gives, marked "multus-status" while multus reports that interface; interfaces
// virt-handler found that are not in the spec stay as they are.
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceNetworkInterface,
} from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import {
  lookupPodPrimaryIfaceName,
  networkStatusesByPodIfaceName,
  networkStatusesFromPod,
  type NetworkStatus,
} from "../multus/status.js";
import {
  createFromNetworkStatuses,
  isSecondaryMultusNetwork,
  lookUpDefaultNetwork,
  PRIMARY_POD_INTERFACE_NAME,
} from "../namescheme/namescheme.js";
import { addInfoSource, INFO_SOURCE_MULTUS_STATUS, removeInfoSource } from "../vmispec/infosource.js";

type IfaceStatus = VirtualMachineInstanceNetworkInterface;

interface Annotated {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
}

const statusNamed = (statuses: readonly IfaceStatus[], name: string): IfaceStatus | undefined =>
  statuses.find((status) => status.name === name);

function primaryIfaceStatus(vmi: VirtualMachineInstance, networkStatuses: readonly NetworkStatus[]) {
  const primary = lookUpDefaultNetwork(vmi.spec.networks ?? []);
  if (!primary) return [];
  const podInterfaceName = lookupPodPrimaryIfaceName(networkStatuses) || PRIMARY_POD_INTERFACE_NAME;
  const known = statusNamed(vmi.status?.interfaces ?? [], primary.name);
  return [{ ...(known ?? { name: primary.name }), podInterfaceName }];
}

function secondaryIfaceStatuses(
  vmi: VirtualMachineInstance,
  networkStatuses: readonly NetworkStatus[],
): IfaceStatus[] {
  const networks = vmi.spec.networks ?? [];
  const reported = networkStatusesByPodIfaceName(networkStatuses);
  const podIfaceNames = createFromNetworkStatuses(networks, networkStatuses);
  const result: IfaceStatus[] = [];
  for (const network of networks.filter(isSecondaryMultusNetwork)) {
    const known = statusNamed(vmi.status?.interfaces ?? [], network.name);
    const podInterfaceName = podIfaceNames.get(network.name);
    if (!podInterfaceName) {
      throw new Error(`could not find the pod interface name for network [${network.name}]`);
    }
    const plugged = reported.has(podInterfaceName);
    if (plugged && !known) {
      result.push({ name: network.name, infoSource: INFO_SOURCE_MULTUS_STATUS, podInterfaceName });
    } else if (known) {
      const infoSource = plugged
        ? addInfoSource(known.infoSource, INFO_SOURCE_MULTUS_STATUS)
        : removeInfoSource(known.infoSource, INFO_SOURCE_MULTUS_STATUS);
      // Go's omitempty: a status with no source left has none.
      const { infoSource: _old, ...rest } = known;
      result.push({ ...rest, ...(infoSource ? { infoSource } : {}), podInterfaceName });
    }
  }
  return result;
}

/** Replaces `vmi.status.interfaces`; throws (leaving them as they were) when a name cannot be found. */
export function updateVMIStatus(vmi: VirtualMachineInstance, pod: Annotated | undefined, log?: Logger): void {
  const networkStatuses = networkStatusesFromPod(pod, log);
  const specified = new Set((vmi.spec.networks ?? []).map((network) => network.name));
  const interfaces = [
    ...primaryIfaceStatus(vmi, networkStatuses),
    ...secondaryIfaceStatuses(vmi, networkStatuses),
    // virt-handler reports interfaces the guest has beyond the spec; they are its to keep.
    ...(vmi.status?.interfaces ?? []).filter((status) => !specified.has(status.name ?? "")),
  ];
  const status = (vmi.status ??= {});
  if (interfaces.length > 0 || status.interfaces !== undefined) status.interfaces = interfaces;
}

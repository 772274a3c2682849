// The VMI a VM starts (upstream's SetupVMIFromVM and the additions startVMI makes before creating it):
// the template's metadata and spec under the VM's name, owned by the VM, remembering which VM generation
// and revision it was started from.
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { calculateLegacyUUID } from "../../../defaults/firmware-uuid.js";
import { setDefaultNetworkInterface } from "../../../defaults/network.js";
import { setDefaultVolumeDisk } from "../../../defaults/storage.js";
import type { OwnerReference } from "../../../controller/object.js";
import { newControllerRef } from "../../../controller/object.js";
import type { ClusterConfig } from "../../../virt-config/cluster-config.js";
import {
  KubeVirtAPIVersion,
  VirtualMachineControllerFinalizer,
  VirtualMachineGenerationAnnotation,
} from "../../../util/constants.js";
import { firstStateChangeRequest, StateChangeAction } from "./vm-requests.js";

export const StartRequestDataPausedKey = "paused";

export function vmControllerReference(vm: VirtualMachine): OwnerReference {
  return newControllerRef(vm, KubeVirtAPIVersion, "VirtualMachine");
}

/** A pending start request asking for the guest to start paused. */
function hasStartPausedRequest(vm: VirtualMachine): boolean {
  const request = firstStateChangeRequest(vm);
  return request?.action === StateChangeAction.Start && request.data?.[StartRequestDataPausedKey] === "true";
}

/** SetupVMIFromVM: the template under the VM's name, with a stable firmware UUID. */
export function setupVMIFromVM(vm: VirtualMachine): VirtualMachineInstance {
  const template = vm.spec.template;
  const spec = structuredClone(template?.spec ?? { domain: { devices: {} } });
  const templateMetadata = structuredClone(template?.metadata ?? {});
  if (hasStartPausedRequest(vm)) spec.startStrategy = "Paused";
  // VMs created before firmware UUIDs were stored keep the UUID derived from their name.
  const firmware = (spec.domain.firmware ??= {});
  if (!firmware.uuid) firmware.uuid = calculateLegacyUUID(vm.metadata?.name ?? "");
  setDefaultVolumeDisk(spec);
  return {
    apiVersion: KubeVirtAPIVersion,
    kind: "VirtualMachineInstance",
    metadata: {
      ...templateMetadata,
      name: vm.metadata?.name ?? "",
      generateName: undefined,
      namespace: vm.metadata?.namespace ?? "",
      labels: templateMetadata.labels,
      ownerReferences: [vmControllerReference(vm)],
    },
    spec,
  };
}

export interface StartedVMI {
  vmi: VirtualMachineInstance;
  /** Upstream's message when the pod network defaults cannot be applied. */
  problem?: string;
}

/**
 * What startVMI creates: the VMI from the template plus the revision it was started from, the VM
 * generation, the VM controller's finalizer (so the VM sees the VMI's final state before it goes), an
 * automatically attached input device if asked for, and the default pod network.
 */
export function vmiToStart(
  vm: VirtualMachine,
  revisionName: string,
  config: ClusterConfig,
  /** Runs before the default devices are added (the preference's auto-attach choices). */
  beforeDefaults?: (vmi: VirtualMachineInstance) => void,
): StartedVMI {
  const vmi = setupVMIFromVM(vm);
  (vmi.status ??= {}).virtualMachineRevisionName = revisionName;
  const metadata = (vmi.metadata ??= {});
  metadata.annotations = {
    ...metadata.annotations,
    [VirtualMachineGenerationAnnotation]: String(vm.metadata?.generation ?? 0),
  };
  metadata.finalizers = [...(metadata.finalizers ?? []), VirtualMachineControllerFinalizer];
  beforeDefaults?.(vmi);
  const devices = vmi.spec.domain.devices;
  if (devices.autoattachInputDevice === true && (devices.inputs?.length ?? 0) === 0) {
    // Bus and type are left to the VMI mutating webhook's defaults.
    devices.inputs = [{ name: "default-0", type: "" }];
  }
  const problem = setDefaultNetworkInterface(config, vmi.spec);
  return problem === undefined ? { vmi } : { vmi, problem };
}

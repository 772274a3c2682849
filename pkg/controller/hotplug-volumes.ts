// Whether a VMI has hotplugged volumes (upstream's controller.VMIHasHotplugVolumes): virt-controller's migration
// controller waits for the target's attachment pod when it has, and virt-api refuses to migrate such a VMI
// while kubevirt-ts does not make that pod.
import type { VirtualMachineInstance } from "../api/generated/v1.js";

export function vmiHasHotplugVolumes(vmi: VirtualMachineInstance): boolean {
  if ((vmi.status?.volumeStatus ?? []).some((status) => status.hotplugVolume)) return true;
  return (vmi.spec.volumes ?? []).some(
    (volume) =>
      volume.dataVolume?.hotpluggable === true || volume.persistentVolumeClaim?.hotpluggable === true,
  );
}

// Carries one hotplug volume request (VM status.volumeRequests, or an addvolume/removevolume call) into a
// VMI spec, as upstream's controller.ApplyVolumeRequestOnVMISpec: virt-api builds its patches with it,
// the VM controller applies the VM's requests to the template, and the VM webhook simulates them.
import type {
  Disk,
  HotplugVolumeSource,
  Volume,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
} from "../api/generated/v1.js";

/** The name a request adds or removes; "" for a request with neither. */
export function volumeRequestName(request: VirtualMachineVolumeRequest): string {
  return request.addVolumeOptions?.name ?? request.removeVolumeOptions?.name ?? "";
}

/**
 * A copy of `spec` with the request applied: an add appends the volume (marked hotpluggable) and its disk
 * named after it, unless a volume of that name is there already; a remove drops both by name.
 */
export function applyVolumeRequestOnVMISpec(
  spec: VirtualMachineInstanceSpec,
  request: VirtualMachineVolumeRequest,
): VirtualMachineInstanceSpec {
  const next = structuredClone(spec);
  const volumes = next.volumes ?? [];
  const disks = next.domain.devices.disks ?? [];
  const add = request.addVolumeOptions;
  if (add) {
    if (volumes.some((volume) => volume.name === add.name)) return next;
    const volume: Volume = { name: add.name };
    // The type says required; a request read from a status may still lack it.
    const source: HotplugVolumeSource | undefined = add.volumeSource;
    if (source?.persistentVolumeClaim) {
      volume.persistentVolumeClaim = { ...structuredClone(source.persistentVolumeClaim), hotpluggable: true };
    } else if (source?.dataVolume) {
      volume.dataVolume = { ...structuredClone(source.dataVolume), hotpluggable: true };
    }
    next.volumes = [...volumes, volume];
    if (add.disk) {
      const disk: Disk = { ...structuredClone(add.disk), name: add.name };
      next.domain.devices.disks = [...disks, disk];
    }
    return next;
  }
  const remove = request.removeVolumeOptions;
  if (remove) {
    next.volumes = volumes.filter((volume) => volume.name !== remove.name);
    next.domain.devices.disks = disks.filter((disk) => disk.name !== remove.name);
  }
  return next;
}

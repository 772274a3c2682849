// Upstream's ValidateHotplugDiskConfiguration (pkg/storage/admitters/storagehotplug.go): what a disk
// plugged into a running VMI may be, checked on a VM's volume requests and on a VMI's new hotplug disks.
import type { Disk } from "../../api/generated/v1.js";
import { invalidCause, type StatusCause } from "../../api/causes.js";

const busOf = (disk: Disk): string => disk.disk?.bus ?? disk.lun?.bus ?? disk.cdrom?.bus ?? "";

/** `prefix` opens each message ("AddVolume request", "Hotplug configuration"); `field` names the cause. */
export function validateHotplugDiskConfiguration(
  disk: Disk | undefined,
  name: string,
  prefix: string,
  field: string,
): StatusCause[] {
  const refuse = (message: string) => [invalidCause(message, field || undefined)];
  if (!disk) return refuse(`${prefix} for [${name}] requires the disk field to be set.`);
  const bus = busOf(disk);
  if (disk.disk) {
    if (bus !== "scsi" && bus !== "virtio") {
      return refuse(
        `${prefix} for disk [${name}] requires bus to be 'scsi' or 'virtio'. [${bus}] is not permitted.`,
      );
    }
  } else if (disk.lun) {
    if (bus !== "scsi")
      return refuse(`${prefix} for LUN [${name}] requires bus to be 'scsi'. [${bus}] is not permitted.`);
  } else {
    return refuse(`${prefix} for [${name}] requires diskDevice of type 'disk' or 'lun' to be used.`);
  }
  if (disk.dedicatedIOThread === true && bus !== "virtio")
    return refuse(`${prefix} for [${name}] requires virtio bus for IOThreads.`);
  // Upstream names the second disk whichever it is.
  if (disk.bootOrder !== undefined && disk.bootOrder !== null && disk.bootOrder < 1) {
    return [
      invalidCause(
        "spec.domain.devices.disks[1] must have a boot order > 0, if supplied",
        "spec.domain.devices.disks[1].bootOrder",
      ),
    ];
  }
  return [];
}

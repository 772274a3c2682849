import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";

/** Gives every disk, CD-ROM and LUN without a bus the architecture's default bus. */
export function setDefaultDisksBus(spec: VirtualMachineInstanceSpec, bus: string): void {
  for (const disk of spec.domain.devices?.disks ?? []) {
    for (const target of [disk.disk, disk.cdrom, disk.lun]) {
      if (target && !target.bus) target.bus = bus;
    }
  }
}

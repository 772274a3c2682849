// Storage defaults of a VMI spec: container disk pull policies and a disk for every volume that has
// neither a disk nor a filesystem (upstream defaults.go and pkg/util SetDefaultVolumeDisk).
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";

/** `:latest` or untagged images are pulled every time, like Kubernetes does for containers. */
export function setDefaultPullPoliciesOnContainerDisks(spec: VirtualMachineInstanceSpec): void {
  for (const volume of spec.volumes ?? []) {
    const containerDisk = volume.containerDisk;
    if (!containerDisk || containerDisk.imagePullPolicy) continue;
    const image = containerDisk.image ?? "";
    const floating = image.endsWith(":latest") || !/[:@]/.test(image);
    containerDisk.imagePullPolicy = floating ? "Always" : "IfNotPresent";
  }
}

export function setDefaultVolumeDisk(spec: VirtualMachineInstanceSpec): void {
  const devices = (spec.domain.devices ??= {});
  const attached = new Set<string>();
  for (const disk of devices.disks ?? []) attached.add(disk.name);
  for (const filesystem of devices.filesystems ?? []) attached.add(filesystem.name);
  for (const volume of spec.volumes ?? []) {
    if (attached.has(volume.name)) continue;
    (devices.disks ??= []).push({ name: volume.name });
  }
}

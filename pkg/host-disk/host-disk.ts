// Filesystem PVCs become hostDisks (upstream pkg/host-disk ReplacePVCByHostDisk): a claim mounted as a
// directory holds the guest's disk as `<vmi-disks>/<volume>/disk.img`, which virt-handler creates when
// absent (see disk-img-creator.ts). Block claims, hotplugged volumes and virtiofs shares stay as they are.
import type { VirtualMachineInstance, Volume, VolumeStatus } from "../api/generated/v1.js";
import { Quantity } from "../defaults/quantity.js";
import { hasSharedAccessModes, isPVCBlock } from "../storage/types/pvc.js";
import { DEFAULT_LAYOUT, pvcDiskImagePath } from "../util/launcher-layout.js";

/** hostDisk.type: the image is created when it is missing. */
export const HostDiskExistsOrCreate = "DiskOrCreate";
/** hostDisk.type: the image must already exist. */
export const HostDiskExists = "Disk";

const MiB = 1024n * 1024n;

/** Disk images are whole MiBs: a misaligned size is rounded down (upstream util.AlignImageSizeTo1MiB). */
export const alignImageSizeTo1MiB = (size: bigint): bigint => size - (size % MiB);

/**
 * Rewrites, in place, every Filesystem persistentVolumeClaim and dataVolume volume of `vmi` as a
 * DiskOrCreate hostDisk. Pass a copy: the result is what the launcher gets, not what the cluster holds.
 */
export function replacePVCByHostDisk(vmi: VirtualMachineInstance): void {
  const passthroughFilesystems = new Set((vmi.spec.domain.devices.filesystems ?? []).map((fs) => fs.name));
  const statuses = vmi.status?.volumeStatus ?? [];
  const hotplugged = new Set(statuses.filter((s) => s.hotplugVolume).map((s) => s.name));
  const claimStatus = new Map(statuses.filter((s) => s.persistentVolumeClaimInfo).map((s) => [s.name, s]));

  for (const volume of vmi.spec.volumes ?? []) {
    const fromClaim = volume.persistentVolumeClaim !== undefined || Boolean(volume.dataVolume?.name);
    if (!fromClaim) continue;
    if (passthroughFilesystems.has(volume.name) || hotplugged.has(volume.name)) continue;
    const status = claimStatus.get(volume.name);
    if (!status || isPVCBlock(status.persistentVolumeClaimInfo?.volumeMode)) continue;
    volume.hostDisk = hostDiskFor(volume, status);
    delete volume.persistentVolumeClaim;
    delete volume.dataVolume;
  }
}

function hostDiskFor(volume: Volume, status: VolumeStatus): NonNullable<Volume["hostDisk"]> {
  const info = status.persistentVolumeClaimInfo ?? {};
  const capacity = Quantity.tryParse(info.capacity?.["storage"]);
  const requested = Quantity.tryParse(info.requests?.["storage"]);
  if (!capacity && !requested)
    throw new Error(
      "unable to determine capacity of HostDisk from PVC that provides no storage capacity or requests",
    );
  // The user asked for `requested`; a larger claim (the provisioner rounded up) does not grow the disk.
  const chosen =
    requested && (!capacity || capacity.value() > requested.value())
      ? requested.value()
      : (capacity as Quantity).value();
  const size = alignImageSizeTo1MiB(chosen);
  if (size <= 0n) throw new Error(`the size for volume ${volume.name} is too low, must be at least 1MiB`);
  return {
    path: pvcDiskImagePath(DEFAULT_LAYOUT, volume.name),
    type: HostDiskExistsOrCreate,
    capacity: Quantity.fromInteger(size, capacity?.format ?? "BinarySI").toString(),
    shared: hasSharedAccessModes(info.accessModes),
  };
}

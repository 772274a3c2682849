// containerDisk volumes inside the launcher (upstream pkg/container-disk): virt-handler makes each
// containerDisk's image appear as `<container disk dir>/disk_<volume index>.img` (the index is the
// volume's position in spec.volumes), read-only; the launcher boots from a qcow2 overlay over it.
import { join } from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { EphemeralDiskCreator } from "../ephemeral-disk/ephemeral-disk.js";
import { fileExists } from "../ephemeral-disk/files.js";
import { imageInfo } from "../ephemeral-disk/qemu-img.js";

/** Upstream's default `--container-disk-dir`. */
export const CONTAINER_DISK_DIR = "/var/run/kubevirt/container-disks";
export const KERNEL_BOOT_NAME = "kernel-boot";

export function diskTargetName(volumeIndex: number): string {
  return `disk_${volumeIndex}.img`;
}

export function diskTargetPathFromLauncherView(containerDiskDir: string, volumeIndex: number): string {
  return join(containerDiskDir, diskTargetName(volumeIndex));
}

/** Where a kernel-boot container's kernel or initrd is found, by the artifact's base name. */
export function kernelBootArtifactPathFromLauncherView(containerDiskDir: string, artifact: string): string {
  return join(containerDiskDir, KERNEL_BOOT_NAME, artifact.split("/").at(-1) ?? artifact);
}

/** Each containerDisk volume's index in spec.volumes, by volume name. */
export function containerDiskVolumes(vmi: VirtualMachineInstance): Map<string, number> {
  const indexes = new Map<string, number>();
  (vmi.spec.volumes ?? []).forEach((volume, index) => {
    if (volume.containerDisk) indexes.set(volume.name, index);
  });
  return indexes;
}

/**
 * The format of each containerDisk image, by volume name: what virt-handler probed and passed in
 * the sync options, or else what qemu-img says about the image the launcher sees.
 */
export async function containerDiskFormats(
  vmi: VirtualMachineInstance,
  containerDiskDir: string,
  probed: Readonly<Record<string, { format: string }>> = {},
): Promise<Map<string, string>> {
  const formats = new Map<string, string>();
  for (const [volume, index] of containerDiskVolumes(vmi)) {
    const known = probed[volume]?.format;
    if (known) {
      formats.set(volume, known);
      continue;
    }
    const image = diskTargetPathFromLauncherView(containerDiskDir, index);
    if (!(await fileExists(image))) {
      throw new Error(`no supported file disk found for volume found in: ${image}`);
    }
    formats.set(volume, (await imageInfo(image)).format);
  }
  return formats;
}

/** Creates the overlay of every containerDisk (upstream CreateEphemeralImages). */
export async function createEphemeralImages(
  vmi: VirtualMachineInstance,
  containerDiskDir: string,
  diskCreator: EphemeralDiskCreator,
  formats: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [volume, index] of containerDiskVolumes(vmi)) {
    const format = formats.get(volume);
    if (!format) throw new Error(`no disk info provided for volume ${volume}`);
    const backingFile = diskTargetPathFromLauncherView(containerDiskDir, index);
    if (!(await fileExists(backingFile))) {
      throw new Error(`no supported file disk found for volume found in: ${backingFile}`);
    }
    await diskCreator.createBackedImageForVolume(volume, backingFile, format);
  }
}

// Which disks a running domain gains or loses when volumes are hotplugged or unplugged (upstream
// manager.go getAttachedDisks, getDetachedDisks and checkIfDiskReadyToUse, and disksource.Resolve):
// a disk is a hotplugged one when its image lives in the hotplug dir, and disks are matched between
// the domain and the converted VMI by their target name.
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import type { Disk } from "./api/schema.js";

/** The file or device QEMU reads the disk from (upstream ResolvedDiskSource.BackendPath, no overlays here). */
export function diskBackendPath(disk: Disk): string {
  return disk.source.file || disk.source.dev || "";
}

/** Whether the disk's image is one virt-handler put in the hotplug dir (upstream IsHotplugDisk). */
export function isHotplugDisk(disk: Disk, hotplugDiskDir: string): boolean {
  const prefix = hotplugDiskDir.endsWith("/") ? hotplugDiskDir : `${hotplugDiskDir}/`;
  return diskBackendPath(disk).startsWith(prefix);
}

/** Only disks on these buses are plugged or unplugged live; a bus of "" is libvirt's default. */
const hotplugBus = (disk: Disk): boolean => [undefined, "", "virtio", "scsi"].includes(disk.target.bus);

/** Hotplugged disks of `from` whose target `to` has no disk on. */
function hotplugDisksMissingIn(from: readonly Disk[], to: readonly Disk[], hotplugDiskDir: string): Disk[] {
  const targets = new Set(to.map((disk) => disk.target.device));
  return from.filter(
    (disk) => isHotplugDisk(disk, hotplugDiskDir) && hotplugBus(disk) && !targets.has(disk.target.device),
  );
}

/** The hotplugged disks of the domain (`oldDisks`) that the VMI no longer has: to detach. */
export function getDetachedDisks(
  oldDisks: readonly Disk[],
  newDisks: readonly Disk[],
  hotplugDiskDir: string,
): Disk[] {
  return hotplugDisksMissingIn(oldDisks, newDisks, hotplugDiskDir);
}

/** The hotplugged disks of the VMI (`newDisks`) that the domain does not have yet: to attach. */
export function getAttachedDisks(
  oldDisks: readonly Disk[],
  newDisks: readonly Disk[],
  hotplugDiskDir: string,
): Disk[] {
  return hotplugDisksMissingIn(newDisks, oldDisks, hotplugDiskDir);
}

function errnoOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}

/** Opens and closes the path; false when it cannot be opened. */
async function opens(path: string, flags: number): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, flags);
  } catch {
    return false;
  }
  await handle.close();
  return true;
}

/**
 * Whether virt-handler has finished handing the image over (upstream checkIfDiskReadyToUse): false
 * while nothing is there; a device must open read-only, a file read-write. Other stat errors are thrown.
 */
export async function checkIfDiskReadyToUse(path: string): Promise<boolean> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return false;
    throw error;
  }
  if (info.isBlockDevice() || info.isCharacterDevice()) return opens(path, constants.O_RDONLY);
  return opens(path, constants.O_RDWR);
}

// Disk cache and I/O modes, chosen once the launcher has the images in place (upstream
// converter.go SetDriverCacheMode and SetOptimalIOMode, called from the domain manager): cache
// "none" (O_DIRECT) where the file system allows it, else "writethrough"; io "native" for
// O_DIRECT on block devices and preallocated images.
import { closeSync, constants, existsSync, openSync, rmSync } from "node:fs";
import { imageInfo } from "../../../ephemeral-disk/qemu-img.js";
import type { Disk, DomainSpec } from "../api/schema.js";
import { ConversionError } from "./errors.js";

export interface DirectIOChecker {
  checkBlockDevice(path: string): boolean;
  /** A missing file is created for the check and removed again. */
  checkFile(path: string): boolean;
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** Opens with O_DIRECT; EINVAL means the file system cannot do direct I/O (QEMU's own probe). */
function supportsDirectIO(path: string, flags: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_DIRECT, 0o600);
  } catch (error) {
    if (!isErrno(error, "EINVAL")) throw error;
    closeSync(openSync(path, flags, 0o600));
    return false;
  }
  closeSync(fd);
  return true;
}

export const nodeDirectIOChecker: DirectIOChecker = {
  checkBlockDevice: (path) => supportsDirectIO(path, constants.O_RDONLY),
  checkFile: (path) => {
    if (existsSync(path)) return supportsDirectIO(path, constants.O_RDONLY);
    try {
      return supportsDirectIO(path, constants.O_RDONLY | constants.O_CREAT);
    } finally {
      rmSync(path, { force: true });
    }
  },
};

/** A failed probe counts as "no direct I/O", as upstream only logs it. */
function probe(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

function backendPath(disk: Disk): { path: string; isBlock: boolean } {
  if (disk.type === "block") return { path: disk.source.dev ?? "", isBlock: true };
  return { path: disk.source.file ?? "", isBlock: false };
}

export function setDriverCacheMode(disk: Disk, checker: DirectIOChecker): void {
  const { path, isBlock } = backendPath(disk);
  if (path === "") {
    if (disk.device === "cdrom") return;
    throw new ConversionError("unable to set a driver cache mode, disk has no backend path");
  }
  const driver = (disk.driver ??= { name: "qemu", type: "raw" });
  const mode = driver.cache ?? "";
  let directIO = true;
  if (mode === "" || mode === "none") {
    directIO = probe(() => (isBlock ? checker.checkBlockDevice(path) : checker.checkFile(path)));
    // An overlay is only as direct as its backing image: a file (a containerDisk's image, a
    // Filesystem claim's disk.img) or a Block claim's device. Upstream probes only a backing file
    // and so, finding no path, gives an overlay on a Block claim writethrough.
    const backing = disk.backingStore?.source;
    if (backing?.file) directIO = probe(() => checker.checkFile(backing.file ?? "")) && directIO;
    else if (backing?.dev) directIO = probe(() => checker.checkBlockDevice(backing.dev ?? "")) && directIO;
  }
  if (mode === "none" && !directIO) {
    throw new ConversionError(
      `Unable to use '${mode}' cache mode, file system where ${path} is stored does not support direct I/O`,
    );
  }
  if (mode === "") driver.cache = directIO ? "none" : "writethrough";
}

export function setOptimalIOMode(disk: Disk, isPreAllocated: (path: string) => boolean): void {
  const driver = disk.driver;
  const { path, isBlock } = backendPath(disk);
  if (!driver || driver.io || path === "") return;
  // io=native needs O_DIRECT; sparse files are left to QEMU's default (threads).
  if (driver.cache === "none" && (isBlock || isPreAllocated(path))) driver.io = "native";
}

/** An image file that takes its whole virtual size on disk (upstream IsPreAllocated); false when unreadable. */
export async function isPreAllocated(path: string): Promise<boolean> {
  try {
    const { virtualSize, actualSize } = await imageInfo(path);
    return actualSize !== undefined && virtualSize <= actualSize;
  } catch {
    return false;
  }
}

export interface DiskModeProbes {
  directIO: DirectIOChecker;
  isPreAllocated: (path: string) => Promise<boolean>;
}

export const nodeDiskModeProbes: DiskModeProbes = { directIO: nodeDirectIOChecker, isPreAllocated };

/** One disk's cache and I/O mode, once its image is in place (also for a disk hotplugged later). */
export async function setDiskMode(disk: Disk, probes: DiskModeProbes): Promise<void> {
  setDriverCacheMode(disk, probes.directIO);
  const { path, isBlock } = backendPath(disk);
  // Only a file with O_DIRECT and no mode of the user's can get io=native from its allocation.
  const asks = !isBlock && path !== "" && disk.driver?.cache === "none" && !disk.driver.io;
  const preAllocated = asks && (await probes.isPreAllocated(path));
  setOptimalIOMode(disk, () => preAllocated);
}

/** Every disk's cache and I/O mode, once the launcher has put the images in place (upstream preStartHook). */
export async function setDiskModes(spec: DomainSpec, probes: DiskModeProbes): Promise<void> {
  for (const disk of spec.devices.disks ?? []) await setDiskMode(disk, probes);
}

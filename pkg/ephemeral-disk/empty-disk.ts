// Blank scratch disks for `emptyDisk` volumes (upstream pkg/emptydisk, kept here beside the other
// launcher-made images): `<dir>/<volume>.qcow2`, sized from the volume's capacity rounded down to
// a whole MiB, created once.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { Quantity } from "../defaults/quantity.js";
import { fileExists } from "./files.js";
import type { FileOwnership } from "./ownership.js";
import { createQcow2 } from "./qemu-img.js";

/** Upstream's default location inside the launcher pod. */
export const EMPTY_DISK_BASE_DIR = "/var/run/libvirt/empty-disks";

const MiB = 1024n * 1024n;

export function filePathForVolumeName(baseDir: string, volumeName: string): string {
  return join(baseDir, `${volumeName}.qcow2`);
}

/** The capacity in bytes, rounded down to a MiB multiple as qemu-img wants it aligned. */
export function alignedCapacity(capacity: string | number): bigint {
  const bytes = Quantity.parse(capacity).value();
  return bytes - (bytes % MiB);
}

export class EmptyDiskCreator {
  constructor(
    private readonly baseDir: string,
    private readonly ownership: FileOwnership,
    private readonly createImage: typeof createQcow2 = createQcow2,
  ) {}

  async createTemporaryDisks(vmi: VirtualMachineInstance): Promise<void> {
    for (const volume of vmi.spec.volumes ?? []) {
      if (!volume.emptyDisk) continue;
      const size = alignedCapacity(volume.emptyDisk.capacity);
      if (size === 0n) throw new Error(`the size for volume ${volume.name} is too low`);
      await mkdir(this.baseDir, { recursive: true });
      const file = filePathForVolumeName(this.baseDir, volume.name);
      if (!(await fileExists(file))) await this.createImage(file, size);
      await this.ownership.setFileOwnership(file);
    }
  }
}

// Copy-on-write images over read-only disks (upstream pkg/ephemeral-disk): the guest writes into
// `<base dir>/<volume>/disk.qcow2`, the disk it came from stays untouched.
import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { fileExists } from "./files.js";
import type { FileOwnership } from "./ownership.js";
import { createBackedImage } from "./qemu-img.js";

export class EphemeralDiskCreator {
  constructor(
    /** `<ephemeral disk dir>/disk-data`. */
    private readonly mountBaseDir: string,
    private readonly ownership: FileOwnership,
    private readonly createImage: typeof createBackedImage = createBackedImage,
  ) {}

  async init(): Promise<void> {
    await mkdir(this.mountBaseDir, { recursive: true, mode: 0o755 });
  }

  /** Where the overlay of `volumeName` is (or will be). */
  getFilePath(volumeName: string): string {
    return join(this.mountBaseDir, volumeName, "disk.qcow2");
  }

  /** Creates the overlay once; an existing one is kept (the guest may have written to it). */
  async createBackedImageForVolume(
    volumeName: string,
    backingFile: string,
    backingFormat: string,
  ): Promise<void> {
    const imagePath = this.getFilePath(volumeName);
    await mkdir(join(this.mountBaseDir, volumeName), { recursive: true });
    if (await fileExists(imagePath)) return;
    await this.createImage(backingFile, backingFormat, imagePath);
    // Shared between the launcher and QEMU, nobody else.
    await chmod(imagePath, 0o640);
    await this.ownership.setFileOwnership(imagePath);
  }

  /**
   * The overlays of `ephemeral` volumes (upstream CreateEphemeralImages): the guest writes into the overlay,
   * the claim's raw image or device below it is never written.
   */
  async createEphemeralImages(
    vmi: VirtualMachineInstance,
    backingFileOf: (volumeName: string) => Promise<string>,
  ): Promise<void> {
    for (const volume of vmi.spec.volumes ?? []) {
      if (!volume.ephemeral) continue;
      await this.createBackedImageForVolume(volume.name, await backingFileOf(volume.name), "raw");
    }
  }
}

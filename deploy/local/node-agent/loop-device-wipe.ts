import { open } from "node:fs/promises";
import { errorMessage } from "../../../pkg/util/error-message.js";
import { CommandError, runCommand, type RunCommand } from "./runtime/exec.js";

// Wiping a local-block volume's loop device before its PV is offered again (local-block-recycler.ts), as
// sig-storage-local-static-provisioner's blkdiscard.sh cleaner does (`blkdiscard -v $LOCAL_PV_BLKDEVICE`;
// the provisioner's default cleaner is quick_reset.sh, mkfs + wipefs, and dd_zero.sh and shred.sh are
// the slow ones). On a loop device a discard punches holes in the sparse backing file, so the next claim
// reads zeros and the file gives its disk back. Where the backing file system cannot punch holes the
// discard fails, and the first and last MiB are zeroed instead: enough to remove partition tables, file
// system and LVM signatures (GPT keeps a copy at the end), not to erase the data between them.

export const MiB = 1024 ** 2;
/** A discard of a large device may take a while; zeroing 2 MiB does not. */
const DISCARD_TIMEOUT_MS = 10 * 60_000;

export type WipeMethod = "blkdiscard" | "zeroed-ends";

export interface WipeResult {
  method: WipeMethod;
  /** Why blkdiscard failed, when the ends were zeroed instead. */
  discardError?: string;
}

/** What the recycler does to loop devices: ask which file backs one, and wipe one. */
export interface LoopDeviceTools {
  /** The backing file of `device`, as the kernel reports it; undefined when it is not attached. */
  backingFile(device: string): Promise<string | undefined>;
  /** Discards the whole device, or zeroes its first and last MiB when the discard fails. */
  wipe(device: string): Promise<WipeResult>;
}

/** Writes zeros over the first and last MiB of a `sizeBytes` device (all of it when smaller than 2 MiB). */
export async function zeroEnds(device: string, sizeBytes: number): Promise<void> {
  const handle = await open(device, "r+");
  try {
    const head = Math.min(MiB, sizeBytes);
    const tailStart = Math.max(head, sizeBytes - MiB);
    const zeros = Buffer.alloc(MiB);
    await handle.write(zeros, 0, head, 0);
    if (sizeBytes > tailStart) await handle.write(zeros, 0, sizeBytes - tailStart, tailStart);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The host's losetup, blkdiscard and blockdev (util-linux), as the privileged node agent runs them. */
export class HostLoopDeviceTools implements LoopDeviceTools {
  constructor(private readonly run: RunCommand = runCommand) {}

  async backingFile(device: string): Promise<string | undefined> {
    try {
      const file = (await this.run("losetup", ["--noheadings", "--output", "BACK-FILE", device])).trim();
      return file === "" ? undefined : file;
    } catch (err) {
      if (err instanceof CommandError) return undefined;
      throw err;
    }
  }

  async wipe(device: string): Promise<WipeResult> {
    try {
      await this.run("blkdiscard", [device], { timeoutMs: DISCARD_TIMEOUT_MS });
      return { method: "blkdiscard" };
    } catch (discardErr) {
      const discardError = errorMessage(discardErr);
      try {
        const size = Number((await this.run("blockdev", ["--getsize64", device])).trim());
        if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`${device} has no size (${size})`);
        await zeroEnds(device, size);
      } catch (zeroErr) {
        throw new Error(
          `blkdiscard failed (${discardError}), and zeroing the first and last MiB failed too: ${errorMessage(zeroErr)}`,
        );
      }
      return { method: "zeroed-ends", discardError };
    }
  }
}

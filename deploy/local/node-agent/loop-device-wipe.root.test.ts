import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, open, realpath, rm, stat, truncate } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runnable, unlessRoot } from "../../../pkg/testutils/requirement.js";
import { HostLoopDeviceTools, MiB } from "./loop-device-wipe.js";
import { CommandError, runCommand, type RunCommand } from "./runtime/exec.js";

// The wipe on real loop devices over sparse files in a temp folder, as the recycler runs it on the
// cluster's: blkdiscard zeroes the device and gives the backing file's blocks back; where blkdiscard
// fails the first and last MiB are zeroed; a device nothing can write is an error. Each device is
// attached with `losetup --find --show`, and detached afterwards by the name that printed.

const TOOLS = ["/usr/sbin/losetup", "/usr/sbin/blkdiscard", "/usr/sbin/blockdev"];
const canRun = runnable(
  "the loop-device wipe root tests",
  unlessRoot() ??
    TOOLS.map((tool) => (existsSync(tool) ? undefined : `${tool} is missing (util-linux)`)).find(Boolean),
);
const SIZE = 8 * MiB;
const PATTERN = 0xab;

let dir: string;
/** The devices this test attached, with their backing files: detached by these names only. */
const attached: { device: string; file: string }[] = [];

async function attach(name: string, readOnly = false): Promise<{ device: string; file: string }> {
  const file = path.join(dir, name);
  await (await open(file, "w")).close();
  await truncate(file, SIZE);
  const args = [...(readOnly ? ["--read-only"] : []), "--find", "--show", file];
  const device = execFileSync("losetup", args, { encoding: "utf8" }).trim();
  const entry = { device, file: await realpath(file) };
  attached.push(entry);
  return entry;
}

async function fill(device: string): Promise<void> {
  const handle = await open(device, "r+");
  try {
    await handle.write(Buffer.alloc(SIZE, PATTERN), 0, SIZE, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function contents(device: string): Promise<Buffer> {
  const handle = await open(device, "r");
  try {
    const buffer = Buffer.alloc(SIZE);
    await handle.read(buffer, 0, SIZE, 0);
    return buffer;
  } finally {
    await handle.close();
  }
}

const only = (buffer: Buffer, byte: number): boolean => buffer.every((b) => b === byte);

describe.runIf(canRun)("HostLoopDeviceTools on real loop devices", () => {
  let rw: { device: string; file: string };
  let ro: { device: string; file: string };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kvts-wipe-"));
    rw = await attach("disk0.img");
    ro = await attach("disk1.img", true);
  });

  afterAll(async () => {
    for (const { device, file } of attached) {
      // still ours? (the name printed by losetup, never a pattern)
      const backing = execFileSync("losetup", ["--noheadings", "--output", "BACK-FILE", device], {
        encoding: "utf8",
      }).trim();
      if (backing === file) execFileSync("losetup", ["--detach", device]);
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("tells the backing file of an attached device, and none for what is not one", async () => {
    const tools = new HostLoopDeviceTools();
    expect(await tools.backingFile(rw.device)).toBe(rw.file);
    expect(await tools.backingFile("/dev/null")).toBeUndefined();
  });

  it("discards the whole device: it reads zeros and the sparse file gives its blocks back", async () => {
    await fill(rw.device);
    const allocated = (await stat(rw.file)).blocks * 512;
    expect(allocated).toBeGreaterThanOrEqual(SIZE);

    expect(await new HostLoopDeviceTools().wipe(rw.device)).toEqual({ method: "blkdiscard" });
    expect(only(await contents(rw.device), 0)).toBe(true);
    expect((await stat(rw.file)).blocks * 512).toBeLessThan(MiB);
  });

  it("zeroes the first and last MiB when blkdiscard fails, and leaves the middle", async () => {
    await fill(rw.device);
    const noDiscard: RunCommand = (file, args, options) =>
      file === "blkdiscard"
        ? Promise.reject(
            new CommandError([file, ...args], 1, "BLKDISCARD ioctl failed: Operation not supported"),
          )
        : runCommand(file, args, options);

    const result = await new HostLoopDeviceTools(noDiscard).wipe(rw.device);
    expect(result).toEqual({
      method: "zeroed-ends",
      discardError: expect.stringContaining("Operation not supported") as string,
    });
    const data = await contents(rw.device);
    expect(only(data.subarray(0, MiB), 0)).toBe(true);
    expect(only(data.subarray(SIZE - MiB), 0)).toBe(true);
    expect(only(data.subarray(MiB, SIZE - MiB), PATTERN)).toBe(true);
  });

  it("fails when neither blkdiscard nor zeroing can write the device", async () => {
    await expect(new HostLoopDeviceTools().wipe(ro.device)).rejects.toThrow(
      /^blkdiscard failed \(.+\), and zeroing the first and last MiB failed too: /,
    );
  });
});

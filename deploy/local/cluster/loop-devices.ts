// Block devices for the nodes: sparse files under each node's storage folder, attached as loop devices
// (`losetup --find --show`). Each attachment is recorded in the cluster state as soon as it exists, so
// `down` detaches exactly the devices `up` attached — a device is detached only while it is still
// backed by the recorded file, never by a name pattern. Running `up` again reuses what is attached.
import { mkdir, open, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { Layout } from "./layout.js";
import { nodeStorageDir } from "./layout.js";
import type { CommandResult } from "./run-command.js";
import { runCommand } from "./run-command.js";
import type { Say } from "./start.js";
import { readLoopDevices, writeLoopDevices, type LoopDeviceRecord } from "./state.js";

export type Run = (command: string, args: string[]) => Promise<CommandResult>;

export interface LoopDevicePlan {
  nodes: readonly string[];
  perNode: number;
  sizeBytes: number;
}

const GiB = 1024 ** 3;
/** Four 2 GiB devices a node: sparse, so they take disk only as they are written. */
export const LOOP_DEVICES_PER_NODE = 4;
export const LOOP_DEVICE_SIZE_BYTES = 2 * GiB;

/** The backing file of `device`, as the kernel reports it; undefined when it is not attached. */
export async function backingFile(run: Run, device: string): Promise<string | undefined> {
  const result = await run("losetup", ["--noheadings", "--output", "BACK-FILE", device]);
  const file = result.stdout.trim();
  return result.code === 0 && file !== "" ? file : undefined;
}

/** Loop devices already backed by `file` (an attachment whose record was lost). */
async function devicesOf(run: Run, file: string): Promise<string[]> {
  const result = await run("losetup", ["--list", "--noheadings", "--output", "NAME", "--associated", file]);
  if (result.code !== 0) return [];
  return result.stdout
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

async function ensureSparseFile(file: string, sizeBytes: number): Promise<void> {
  // "a" creates a missing file and never shortens an existing one (its data is a volume's)
  const handle = await open(file, "a");
  try {
    if ((await handle.stat()).size < sizeBytes) await handle.truncate(sizeBytes);
  } finally {
    await handle.close();
  }
}

async function attach(run: Run, file: string): Promise<string> {
  const result = await run("losetup", ["--find", "--show", file]);
  const device = result.stdout.trim();
  if (result.code !== 0 || !device.startsWith("/dev/")) {
    throw new Error(`losetup --find --show ${file} failed (exit ${result.code}): ${result.stderr.trim()}`);
  }
  return device;
}

/**
 * Makes sure every planned file exists and is attached; answers the records, node by node and in
 * index order. Records whose device now has another backing file (a reboot, another user) are dropped.
 */
export async function ensureLoopDevices(
  l: Layout,
  plan: LoopDevicePlan,
  run: Run = runCommand,
): Promise<LoopDeviceRecord[]> {
  let records = await readLoopDevices(l);
  const stillOurs: LoopDeviceRecord[] = [];
  for (const record of records) {
    if ((await backingFile(run, record.device)) === record.file) stillOurs.push(record);
  }
  if (stillOurs.length !== records.length) await writeLoopDevices(l, stillOurs);
  records = stillOurs;

  const wanted: LoopDeviceRecord[] = [];
  for (const node of plan.nodes) {
    const dir = join(nodeStorageDir(l, node), "block");
    await mkdir(dir, { recursive: true });
    // the kernel reports a backing file by its real path
    const realDir = await realpath(dir);
    for (let index = 0; index < plan.perNode; index++) {
      const file = join(realDir, `disk${index}.img`);
      let record = records.find((r) => r.file === file);
      if (!record) {
        await ensureSparseFile(file, plan.sizeBytes);
        const device = (await devicesOf(run, file))[0] ?? (await attach(run, file));
        record = { node, index, file, device, sizeBytes: plan.sizeBytes };
        records = [...records, record];
        // recorded before anything else can fail, so `down` knows of it
        await writeLoopDevices(l, records);
      }
      wanted.push(record);
    }
  }
  return wanted;
}

/** Detaches the recorded devices still backed by their recorded files, then forgets them all. */
export async function detachLoopDevices(l: Layout, say: Say, run: Run = runCommand): Promise<void> {
  const records = await readLoopDevices(l);
  for (const record of records) {
    const file = await backingFile(run, record.device);
    if (file !== record.file) {
      say(`loop device ${record.device} no longer backed by ${record.file}: left alone`);
      continue;
    }
    const result = await run("losetup", ["--detach", record.device]);
    if (result.code !== 0) {
      throw new Error(
        `losetup --detach ${record.device} failed (exit ${result.code}): ${result.stderr.trim()}`,
      );
    }
    say(`detached ${record.device} (${record.file})`);
  }
  await writeLoopDevices(l, []);
}

/** Loop devices backed by a file under `dir` (for `down`'s check that nothing is left). */
export async function loopDevicesUnder(dir: string, run: Run = runCommand): Promise<string[]> {
  const result = await run("losetup", ["--list", "--noheadings", "--output", "NAME,BACK-FILE"]);
  if (result.code !== 0) return [];
  const real = await realpath(dir).catch(() => dir);
  const found: string[] = [];
  for (const line of result.stdout.split("\n")) {
    const [, name, file] = /^(\S+)\s+(.+)$/.exec(line.trim()) ?? [];
    if (name && file && [dir, real].some((under) => file === under || file.startsWith(`${under}/`))) {
      found.push(`${name} (${file})`);
    }
  }
  return found;
}

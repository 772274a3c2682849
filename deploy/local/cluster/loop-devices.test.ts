import { mkdtemp, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { layout, type Layout } from "./layout.js";
import { detachLoopDevices, ensureLoopDevices, loopDevicesUnder, type Run } from "./loop-devices.js";
import { readLoopDevices } from "./state.js";

/** losetup over a table of device → backing file, as the kernel keeps it. */
function fakeLosetup(attached: Map<string, string>): { run: Run; calls: string[][] } {
  const calls: string[][] = [];
  let next = 0;
  const ok = (stdout: string) => ({ code: 0, stdout, stderr: "" });
  const run: Run = async (command, args) => {
    calls.push([command, ...args]);
    if (args[0] === "--find") {
      while (attached.has(`/dev/loop${next}`)) next++;
      const device = `/dev/loop${next}`;
      attached.set(device, args[2] as string);
      return ok(`${device}\n`);
    }
    if (args[0] === "--detach") {
      const known = attached.delete(args[1] as string);
      return known ? ok("") : { code: 1, stdout: "", stderr: "no such device" };
    }
    if (args[0] === "--list" && args.includes("--associated")) {
      const file = args[args.length - 1];
      return ok(
        [...attached]
          .filter(([, f]) => f === file)
          .map(([d]) => `${d}\n`)
          .join(""),
      );
    }
    if (args[0] === "--list") return ok([...attached].map(([d, f]) => `${d} ${f}\n`).join(""));
    const device = args[args.length - 1] as string;
    const file = attached.get(device);
    return file ? ok(`${file}\n`) : { code: 1, stdout: "", stderr: "no such device" };
  };
  return { run, calls };
}

describe("loop devices", () => {
  let root: string;
  let l: Layout;
  const plan = { nodes: ["node01", "node02"], perNode: 2, sizeBytes: 1 << 20 };

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "loop-devices-")));
    l = layout(root, { HOME: root });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("attaches sparse files per node, records each, and a second run attaches nothing new", async () => {
    const attached = new Map<string, string>();
    const { run, calls } = fakeLosetup(attached);
    const records = await ensureLoopDevices(l, plan, run);
    expect(records.map((r) => [r.node, r.index, r.device])).toEqual([
      ["node01", 0, "/dev/loop0"],
      ["node01", 1, "/dev/loop1"],
      ["node02", 0, "/dev/loop2"],
      ["node02", 1, "/dev/loop3"],
    ]);
    expect((await stat(records[0]!.file)).size).toBe(1 << 20);
    expect(records[0]!.file).toBe(join(l.storageDir, "node01", "block", "disk0.img"));
    expect(await readLoopDevices(l)).toEqual(records);

    const before = calls.filter((c) => c[1] === "--find").length;
    expect(await ensureLoopDevices(l, plan, run)).toEqual(records);
    expect(calls.filter((c) => c[1] === "--find").length).toBe(before);
  });

  it("finds an attachment whose record was lost instead of attaching the file twice", async () => {
    const attached = new Map<string, string>();
    const { run } = fakeLosetup(attached);
    const first = await ensureLoopDevices(l, plan, run);
    await rm(l.loopDevicesFile);
    expect((await ensureLoopDevices(l, plan, run)).map((r) => r.device)).toEqual(first.map((r) => r.device));
    expect(attached.size).toBe(4);
  });

  it("drops a record whose device is now backed by another file", async () => {
    const attached = new Map<string, string>();
    const { run } = fakeLosetup(attached);
    await ensureLoopDevices(l, plan, run);
    attached.set("/dev/loop0", "/somebody/else.img");
    const records = await ensureLoopDevices(l, plan, run);
    expect(records.find((r) => r.node === "node01" && r.index === 0)?.device).toBe("/dev/loop4");
    expect(attached.get("/dev/loop0")).toBe("/somebody/else.img");
  });

  it("detaches only the recorded devices still backed by their files, then forgets them", async () => {
    const attached = new Map<string, string>([["/dev/loop9", "/other/user.img"]]);
    const { run } = fakeLosetup(attached);
    await ensureLoopDevices(l, plan, run);
    attached.set("/dev/loop1", "/somebody/else.img");
    const said: string[] = [];
    await detachLoopDevices(l, (line) => said.push(line), run);
    expect([...attached]).toEqual([
      ["/dev/loop9", "/other/user.img"],
      ["/dev/loop1", "/somebody/else.img"],
    ]);
    expect(said.some((line) => line.includes("/dev/loop1") && line.includes("left alone"))).toBe(true);
    expect(JSON.parse(await readFile(l.loopDevicesFile, "utf8"))).toEqual([]);
  });

  it("reports leftovers under the state folder only", async () => {
    const attached = new Map<string, string>();
    const { run } = fakeLosetup(attached);
    await ensureLoopDevices(l, plan, run);
    attached.set("/dev/loop7", `${l.stateDir}-other/x.img`);
    expect(await loopDevicesUnder(l.stateDir, run)).toHaveLength(4);
  });

  it("refuses a state file that is not a list", async () => {
    const { writeFile, mkdir } = await import("node:fs/promises");
    await mkdir(l.stateDir, { recursive: true });
    await writeFile(l.loopDevicesFile, "{}");
    await expect(readLoopDevices(l)).rejects.toThrow(/expected a list of loop devices/);
  });
});

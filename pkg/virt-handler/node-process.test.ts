import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeProcessPid } from "./node-process.js";

let proc: string;
beforeEach(async () => {
  proc = await mkdtemp(path.join(os.tmpdir(), "node-process-"));
});
afterEach(async () => {
  await rm(proc, { recursive: true, force: true });
});

/** A fake /proc entry: its parent, its mount namespace and, optionally, a readable root. */
async function processEntry(pid: number, parent: number, mountNamespace: string, root = false) {
  const dir = path.join(proc, String(pid));
  await mkdir(path.join(dir, "ns"), { recursive: true });
  await writeFile(
    path.join(dir, "stat"),
    `${pid} (a (weird) name) S ${parent} 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1000 0 0\n`,
  );
  await symlink(`mnt:[${mountNamespace}]`, path.join(dir, "ns/mnt"));
  if (root) await mkdir(path.join(dir, "root"));
}

describe("nodeProcessPid", () => {
  it("is PID 1 when the node's init can be entered, as upstream assumes", async () => {
    await processEntry(1, 0, "node", true);
    await processEntry(50, 1, "container");
    expect(await nodeProcessPid(proc, 50)).toBe(1);
  });

  it("is the nearest ancestor outside our mount namespace when PID 1 is not ours", async () => {
    await processEntry(1, 0, "sandbox");
    await processEntry(10, 1, "node");
    await processEntry(20, 10, "node");
    await processEntry(30, 20, "container");
    await processEntry(40, 30, "container");
    expect(await nodeProcessPid(proc, 40)).toBe(20);
  });

  it("says so when no ancestor is outside", async () => {
    await processEntry(1, 0, "same");
    await processEntry(5, 1, "same");
    await expect(nodeProcessPid(proc, 5)).rejects.toThrow(/cannot find the node's mount namespace/);
  });

  it("finds, for a real process in a mount namespace of its own, this test's process or PID 1", async () => {
    const child = spawn("unshare", ["--mount", "--propagation", "private", "sleep", "30"]);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pid = await nodeProcessPid("/proc", child.pid ?? 0);
      expect([1, process.pid]).toContain(pid);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

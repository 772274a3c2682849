import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deviceNodeFor } from "./device-nodes.js";
import { runnable, unlessRoot } from "../../../../pkg/testutils/requirement.js";

const canRun = runnable("deviceNodeFor (mknod)", unlessRoot());
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe.runIf(canRun)("deviceNodeFor", () => {
  it("makes the container its own node of the same device, open to every user", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "devnodes-"));
    dirs.push(dir);
    const node = await deviceNodeFor("/dev/null", dir);
    const [made, host] = await Promise.all([stat(node), stat("/dev/null")]);
    expect(made.isCharacterDevice()).toBe(true);
    expect(made.rdev).toBe(host.rdev);
    expect(made.mode & 0o777).toBe(0o666);
    expect(await deviceNodeFor("/dev/null", dir)).toBe(node); // again, replacing its own
  });

  it("refuses a path that is no device", async () => {
    await expect(deviceNodeFor("/etc/hostname", os.tmpdir())).rejects.toThrow(/is not a device node/);
  });
});

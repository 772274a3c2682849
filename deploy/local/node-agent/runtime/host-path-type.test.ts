import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHostPathType } from "./host-path-type.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hostpath-type-"));
  await writeFile(path.join(dir, "file"), "");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("checkHostPathType", () => {
  it("creates what the OrCreate types and the empty type ask for", async () => {
    expect(await checkHostPathType(path.join(dir, "pv-1"), "DirectoryOrCreate")).toBe("directory");
    expect((await stat(path.join(dir, "pv-1"))).mode & 0o777).toBe(0o755);
    expect(await checkHostPathType(path.join(dir, "plain"), undefined)).toBe("directory");
    expect(await checkHostPathType(path.join(dir, "new-file"), "FileOrCreate")).toBe("file");
  });

  it.each([
    ["Directory", "missing", /hostPath .*missing doesn't exist/],
    ["Directory", "file", /hostPath type check failed: .*file is not a directory, it's a File/],
    ["BlockDevice", "file", /is not a block device, it's a File/],
    ["Sideways", "file", "Sideways is an invalid volume type"],
  ])("refuses type %s for %s with kubelet's message", async (type, name, message) => {
    await expect(checkHostPathType(path.join(dir, name), type)).rejects.toThrow(message);
  });
});

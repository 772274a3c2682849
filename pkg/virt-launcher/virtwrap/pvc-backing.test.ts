import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT } from "../layout.js";
import { isBlockDevice, pvcBackingFile } from "./pvc-backing.js";

describe("pvcBackingFile", () => {
  it("is the device node of a Block PVC", async () => {
    const seen: string[] = [];
    const block = (path: string) => {
      seen.push(path);
      return Promise.resolve(true);
    };
    expect(await pvcBackingFile(DEFAULT_LAYOUT, "data", block)).toBe("/dev/data");
    expect(seen).toEqual(["/dev/data"]);
  });

  it("is the disk.img of a Filesystem PVC", async () => {
    expect(await pvcBackingFile(DEFAULT_LAYOUT, "data", () => Promise.resolve(false))).toBe(
      "/var/run/kubevirt-private/vmi-disks/data/disk.img",
    );
  });
});

describe("isBlockDevice", () => {
  it("is false for a regular file, a character device and a missing path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kvts-block-"));
    try {
      await writeFile(join(dir, "file"), "");
      expect(await isBlockDevice(join(dir, "file"))).toBe(false);
      expect(await isBlockDevice("/dev/null")).toBe(false);
      expect(await isBlockDevice(join(dir, "missing"))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

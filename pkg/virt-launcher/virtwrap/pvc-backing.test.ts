import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT } from "../layout.js";
import { pvcBackingFile } from "./pvc-backing.js";

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

import { mkdtempSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { alignedCapacity, EmptyDiskCreator, filePathForVolumeName } from "./empty-disk.js";
import { EphemeralDiskCreator } from "./ephemeral-disk.js";
import type { FileOwnership } from "./ownership.js";
import { createQcow2, imageInfo } from "./qemu-img.js";
import { ensureTools } from "./testing.js";
import { runnable } from "../testutils/requirement.js";

const MiB = 1024 * 1024;

function recordingOwnership(): FileOwnership & { owned: string[] } {
  const owned: string[] = [];
  return { owned, setFileOwnership: (path) => Promise.resolve(void owned.push(path)) };
}

describe("emptyDisk capacity", () => {
  it.each([
    ["1Gi", 1024n * 1024n * 1024n],
    ["10M", 9n * 1024n * 1024n],
    ["1536Ki", 1024n * 1024n],
    ["512Ki", 0n],
  ])("%s is %i bytes, whole MiB", (capacity, bytes) => {
    expect(alignedCapacity(capacity)).toBe(bytes);
  });
});

const qemuImg = runnable(
  "the qemu-img tests",
  ensureTools(["qemu-img"], ["qemu-utils"]) ? undefined : "qemu-img is missing (qemu-utils)",
);

describe.runIf(qemuImg)("images made with qemu-img", () => {
  it("creates a qcow2 overlay backed by the read-only image, once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-disk-"));
    const base = join(dir, "disk_0.img");
    await createQcow2(base, 64n * BigInt(MiB));
    const ownership = recordingOwnership();
    const creator = new EphemeralDiskCreator(join(dir, "disk-data"), ownership);
    await creator.init();
    await creator.createBackedImageForVolume("containerdisk", base, "qcow2");

    const overlay = creator.getFilePath("containerdisk");
    expect(overlay).toBe(join(dir, "disk-data/containerdisk/disk.qcow2"));
    expect(await imageInfo(overlay)).toMatchObject({
      format: "qcow2",
      virtualSize: 64 * MiB,
      backingFile: base,
      backingFormat: "qcow2",
    });
    expect(statSync(overlay).mode & 0o777).toBe(0o640);
    expect(ownership.owned).toEqual([overlay]);

    // A second sync must not throw away what the guest wrote.
    const before = statSync(overlay).mtimeMs;
    await creator.createBackedImageForVolume("containerdisk", base, "qcow2");
    expect(statSync(overlay).mtimeMs).toBe(before);
    expect(ownership.owned).toHaveLength(1);
  });

  it("reports qemu-img's own words when the backing image is missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-disk-"));
    const creator = new EphemeralDiskCreator(join(dir, "disk-data"), recordingOwnership());
    await expect(creator.createBackedImageForVolume("v", join(dir, "missing.img"), "raw")).rejects.toThrow(
      /qemu-img failed with output '.*missing\.img/,
    );
  });

  it("creates each emptyDisk as a sparse qcow2 of the volume's capacity", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-empty-"));
    const vmi: VirtualMachineInstance = {
      metadata: { name: "v", namespace: "default" },
      spec: {
        domain: { devices: {} },
        volumes: [
          { name: "scratch", emptyDisk: { capacity: "2Gi" } },
          { name: "cloudinit", cloudInitNoCloud: { userData: "x" } },
        ],
      },
    };
    const ownership = recordingOwnership();
    await new EmptyDiskCreator(dir, ownership).createTemporaryDisks(vmi);
    const file = filePathForVolumeName(dir, "scratch");
    expect(await imageInfo(file)).toMatchObject({ format: "qcow2", virtualSize: 2 * 1024 * MiB });
    expect(ownership.owned).toEqual([file]);
  });

  it("refuses an emptyDisk smaller than one MiB", async () => {
    const vmi: VirtualMachineInstance = {
      spec: { domain: { devices: {} }, volumes: [{ name: "tiny", emptyDisk: { capacity: "100Ki" } }] },
    };
    const creator = new EmptyDiskCreator(mkdtempSync(join(tmpdir(), "kvts-empty-")), recordingOwnership());
    await expect(creator.createTemporaryDisks(vmi)).rejects.toThrow("the size for volume tiny is too low");
  });
});

describe("overlays of ephemeral volumes", () => {
  it("creates a raw-backed overlay for each ephemeral volume only, over the backing file it is given", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-eph-"));
    const created: string[][] = [];
    const creator = new EphemeralDiskCreator(
      join(dir, "disk-data"),
      recordingOwnership(),
      async (backing, format, image) => {
        created.push([backing, format, image]);
        await writeFile(image, "");
      },
    );
    const vmi: VirtualMachineInstance = {
      metadata: { name: "testvmi", namespace: "default" },
      spec: {
        domain: { devices: {} },
        volumes: [
          { name: "eph", ephemeral: { persistentVolumeClaim: { claimName: "base" } } },
          { name: "pvc", persistentVolumeClaim: { claimName: "other" } },
        ],
      },
    };
    await creator.createEphemeralImages(vmi, (volume) => Promise.resolve(`/backing/${volume}`));
    expect(created).toEqual([["/backing/eph", "raw", join(dir, "disk-data/eph/disk.qcow2")]]);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Disk } from "./api/schema.js";
import {
  checkIfDiskReadyToUse,
  diskBackendPath,
  getAttachedDisks,
  getDetachedDisks,
  isHotplugDisk,
} from "./hotplug-disks.js";

const DIR = "/var/run/kubevirt/hotplug-disks";

function disk(device: string, source: Disk["source"], bus = "scsi"): Disk {
  return { device: "disk", type: source.dev ? "block" : "file", source, target: { bus, device } };
}

const hotplugFile = disk("sda", { file: `${DIR}/hp.img` });
const hotplugBlock = disk("vdb", { dev: `${DIR}/hpblock` }, "virtio");
const containerDisk = disk(
  "vda",
  { file: "/var/run/kubevirt-ephemeral-disks/disk-data/root/disk.qcow2" },
  "virtio",
);
const sataHotplug = disk("sdb", { file: `${DIR}/sata.img` }, "sata");

describe("hotplugged disks", () => {
  it("are the ones whose image is in the hotplug dir, a file winning over a device", () => {
    expect(isHotplugDisk(hotplugFile, DIR)).toBe(true);
    expect(isHotplugDisk(hotplugBlock, `${DIR}/`)).toBe(true);
    expect(isHotplugDisk(containerDisk, DIR)).toBe(false);
    expect(isHotplugDisk(disk("sdc", { file: `${DIR}-other/x.img` }), DIR)).toBe(false);
    expect(isHotplugDisk(disk("sdc", {}), DIR)).toBe(false);
    expect(diskBackendPath(disk("sdc", { file: "/a", dev: "/b" }))).toBe("/a");
  });

  it("to attach: hotplugged disks of the VMI on virtio, scsi or the default bus that the domain has no target for", () => {
    const defaultBus: Disk = { ...disk("sdd", { file: `${DIR}/d.img` }), target: { device: "sdd" } };
    const wanted = [containerDisk, hotplugFile, hotplugBlock, sataHotplug, defaultBus];
    expect(getAttachedDisks([containerDisk, hotplugBlock], wanted, DIR)).toEqual([hotplugFile, defaultBus]);
    expect(getAttachedDisks(wanted, wanted, DIR)).toEqual([]);
  });

  it("to detach: hotplugged disks of the domain whose target the VMI no longer has", () => {
    const current = [containerDisk, hotplugFile, hotplugBlock, sataHotplug];
    expect(getDetachedDisks(current, [hotplugBlock], DIR)).toEqual([hotplugFile]);
    // Matched by target: the same target with another source is not detached (nor attached).
    const moved = disk("sda", { file: `${DIR}/other.img` });
    expect(getDetachedDisks(current, [containerDisk, moved, hotplugBlock], DIR)).toEqual([]);
  });
});

describe("checkIfDiskReadyToUse", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "hotplug-ready-"));
    writeFileSync(join(dir, "hp.img"), "");
    mkdirSync(join(dir, "adir"));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is false while nothing is there", async () => {
    expect(await checkIfDiskReadyToUse(join(dir, "missing.img"))).toBe(false);
  });

  it("is true for a file that opens read-write", async () => {
    expect(await checkIfDiskReadyToUse(join(dir, "hp.img"))).toBe(true);
  });

  it("is false for what does not open read-write (a directory)", async () => {
    expect(await checkIfDiskReadyToUse(join(dir, "adir"))).toBe(false);
  });

  it("is true for a device that opens read-only", async () => {
    expect(await checkIfDiskReadyToUse("/dev/null")).toBe(true);
  });

  it("passes on stat errors other than a missing file", async () => {
    await expect(checkIfDiskReadyToUse(join(dir, "hp.img", "below"))).rejects.toMatchObject({
      code: "ENOTDIR",
    });
  });
});

import { existsSync, mkdtempSync, rmSync, statfsSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Volume } from "../../../api/generated/v1.js";
import { newMinimalDomainSpec } from "../api/defaults.js";
import type { Disk } from "../api/schema.js";
import type { DirectIOChecker } from "./disk-cache.js";
import { ensureTools } from "../../../ephemeral-disk/testing.js";
import { runnable } from "../../../testutils/requirement.js";
import {
  isPreAllocated,
  nodeDirectIOChecker,
  setDiskModes,
  setDriverCacheMode,
  setOptimalIOMode,
} from "./disk-cache.js";
import { configureDisks } from "./storage.js";
import { defaultedVMI, testContext } from "./testing.js";

function fileDisk(cache?: string, backingFile?: string): Disk {
  return {
    device: "disk",
    type: "file",
    source: { file: "/images/overlay.qcow2" },
    target: { bus: "virtio", device: "vda" },
    driver: { name: "qemu", type: "qcow2", cache },
    backingStore: backingFile ? { type: "file", source: { file: backingFile } } : undefined,
  };
}

/** Direct I/O works everywhere except on the paths listed; "throws" paths fail the probe itself. */
function checkerWithout(...noDirectIO: string[]): DirectIOChecker {
  const answer = (path: string): boolean => {
    if (path.includes("throws")) throw new Error("probe failed");
    return !noDirectIO.includes(path);
  };
  return { checkBlockDevice: answer, checkFile: answer };
}

describe("setDriverCacheMode", () => {
  it.each([
    ["none where the file system does direct I/O", fileDisk(), checkerWithout(), "none"],
    ["writethrough where it does not", fileDisk(), checkerWithout("/images/overlay.qcow2"), "writethrough"],
    [
      "writethrough when only the backing image's file system lacks it",
      fileDisk(undefined, "/images/base.img"),
      checkerWithout("/images/base.img"),
      "writethrough",
    ],
    [
      "writethrough when the probe fails",
      fileDisk(undefined, "/throws/base.img"),
      checkerWithout(),
      "writethrough",
    ],
    [
      "the user's own choice, unprobed",
      fileDisk("writeback"),
      checkerWithout("/images/overlay.qcow2"),
      "writeback",
    ],
  ])("chooses %s", (_rule, disk, checker, expected) => {
    setDriverCacheMode(disk, checker);
    expect(disk.driver?.cache).toBe(expected);
  });

  it("refuses cache none on a file system without direct I/O, in upstream's words", () => {
    expect(() => setDriverCacheMode(fileDisk("none"), checkerWithout("/images/overlay.qcow2"))).toThrow(
      "Unable to use 'none' cache mode, file system where /images/overlay.qcow2 is stored does not support direct I/O",
    );
  });

  it("leaves an empty CD-ROM alone and refuses a disk with no backing path", () => {
    const cdrom: Disk = {
      device: "cdrom",
      type: "block",
      source: {},
      target: {},
      driver: { name: "qemu", type: "raw" },
    };
    setDriverCacheMode(cdrom, checkerWithout());
    expect(cdrom.driver?.cache).toBeUndefined();
    expect(() => setDriverCacheMode({ ...cdrom, device: "disk" }, checkerWithout())).toThrow(
      "unable to set a driver cache mode, disk has no backend path",
    );
  });
});

/** Records what was probed, and how; direct I/O everywhere. */
function recordingChecker(): DirectIOChecker & { probes: string[] } {
  const probes: string[] = [];
  return {
    probes,
    checkBlockDevice: (path) => (probes.push(`block ${path}`), true),
    checkFile: (path) => (probes.push(`file ${path}`), true),
  };
}

describe("cache and I/O modes of the converter's disks", () => {
  function convertedDisk(volume: Volume, block: string[] = []): Disk {
    const vmi = defaultedVMI({
      domain: { devices: { disks: [{ name: volume.name, disk: {} }] } },
      volumes: [volume],
    });
    const spec = newMinimalDomainSpec("default_testvmi");
    configureDisks(vmi, testContext(vmi, { blockVolumes: new Set(block) }), spec);
    const [disk] = spec.devices.disks ?? [];
    if (!disk) throw new Error("no disk converted");
    return disk;
  }
  const claim: Volume = { name: "data", persistentVolumeClaim: { claimName: "data" } };
  const ephemeral: Volume = { name: "data", ephemeral: { persistentVolumeClaim: { claimName: "golden" } } };

  it.each([
    ["a Block claim: its device, then io native", claim, ["data"], ["block /dev/data"], "native"],
    [
      "a Filesystem claim: its disk.img, io native only when preallocated",
      claim,
      [],
      ["file /var/run/kubevirt-private/vmi-disks/data/disk.img"],
      undefined,
    ],
    [
      "an ephemeral overlay on a Block claim: the overlay and the device",
      ephemeral,
      ["data"],
      ["file /var/run/kubevirt-ephemeral-disks/disk-data/data/disk.qcow2", "block /dev/data"],
      undefined,
    ],
    [
      "an ephemeral overlay on a Filesystem claim: the overlay and the disk.img",
      ephemeral,
      [],
      [
        "file /var/run/kubevirt-ephemeral-disks/disk-data/data/disk.qcow2",
        "file /var/run/kubevirt-private/vmi-disks/data/disk.img",
      ],
      undefined,
    ],
  ])("probes %s", (_rule, volume, block, probes, io) => {
    const disk = convertedDisk(volume, block);
    const checker = recordingChecker();
    setDriverCacheMode(disk, checker);
    setOptimalIOMode(disk, () => false);
    expect(checker.probes).toEqual(probes);
    expect(disk.driver?.cache).toBe("none");
    expect(disk.driver?.io).toBe(io);
  });

  it("gives an overlay writethrough when its Block claim's device does no direct I/O", () => {
    const disk = convertedDisk(ephemeral, ["data"]);
    setDriverCacheMode(disk, checkerWithout("/dev/data"));
    expect(disk.driver?.cache).toBe("writethrough");
  });
});

describe("setDiskModes", () => {
  it("asks for the allocation only of files that may get io=native", async () => {
    const asked: string[] = [];
    const spec = newMinimalDomainSpec("default_testvmi");
    const block: Disk = { ...fileDisk(), type: "block", source: { dev: "/dev/data" } };
    spec.devices.disks = [
      fileDisk(),
      block,
      fileDisk("writethrough"),
      { ...fileDisk(), source: { file: "/images/full.img" } },
    ];
    await setDiskModes(spec, {
      directIO: checkerWithout(),
      isPreAllocated: (path) => (asked.push(path), Promise.resolve(path === "/images/full.img")),
    });
    expect(asked).toEqual(["/images/overlay.qcow2", "/images/full.img"]);
    expect(spec.devices.disks.map((disk) => [disk.driver?.cache, disk.driver?.io])).toEqual([
      ["none", undefined],
      ["none", "native"],
      ["writethrough", undefined],
      ["none", "native"],
    ]);
  });
});

const qemuImg = runnable(
  "the preallocation probe",
  ensureTools(["qemu-img"], ["qemu-utils"]) ? undefined : "qemu-img is missing (qemu-utils)",
);

describe.runIf(qemuImg)("isPreAllocated", () => {
  const dir = mkdtempSync(join(tmpdir(), "prealloc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is true of a written raw image, false of a sparse one and of no image at all", async () => {
    const full = join(dir, "full.img");
    writeFileSync(full, Buffer.alloc(1024 * 1024, 1));
    const sparse = join(dir, "sparse.img");
    writeFileSync(sparse, "");
    truncateSync(sparse, 64 * 1024 * 1024);
    expect(await isPreAllocated(full)).toBe(true);
    expect(await isPreAllocated(sparse)).toBe(false);
    expect(await isPreAllocated(join(dir, "missing.img"))).toBe(false);
  });
});

describe("setOptimalIOMode", () => {
  it.each([
    ["native for a preallocated image with cache none", "none", undefined, true, "native"],
    ["QEMU's default for a sparse image", "none", undefined, false, undefined],
    ["QEMU's default without O_DIRECT", "writethrough", undefined, true, undefined],
    ["the user's own choice", "none", "threads", true, "threads"],
  ])("keeps %s", (_rule, cache, io, preallocated, expected) => {
    const disk = fileDisk(cache);
    if (disk.driver) disk.driver.io = io;
    setOptimalIOMode(disk, () => preallocated);
    expect(disk.driver?.io).toBe(expected);
  });
});

describe("nodeDirectIOChecker", () => {
  const dir = mkdtempSync(join(tmpdir(), "directio-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("agrees with itself on an existing file and on a missing one, and removes what it created", () => {
    const existing = join(dir, "image.raw");
    writeFileSync(existing, Buffer.alloc(4096));
    const missing = join(dir, "not-yet.qcow2");
    // Same directory, same file system: the same answer either way.
    expect(nodeDirectIOChecker.checkFile(missing)).toBe(nodeDirectIOChecker.checkFile(existing));
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(existing)).toBe(true);
  });

  // statfs magic numbers of file systems that do O_DIRECT (tmpfs does too since Linux 6.6, so it is
  // no negative example; the fakes above cover the file systems that refuse it).
  const directIOFileSystems = new Map([
    [0xef53, "ext4"],
    [0x58465342, "xfs"],
    [0x9123683e, "btrfs"],
  ]);
  const fileSystem = directIOFileSystems.get(statfsSync(dir).type);
  if (fileSystem === undefined)
    console.warn(`skipping the direct I/O probe: ${dir} is on an unlisted file system`);
  it.skipIf(fileSystem === undefined)(`finds direct I/O on ${fileSystem ?? "?"}`, () => {
    expect(nodeDirectIOChecker.checkFile(join(dir, "disk.img"))).toBe(true);
  });

  it("fails for a path it cannot open", () => {
    expect(() => nodeDirectIOChecker.checkFile(join(dir, "no-such-dir", "x"))).toThrow(/ENOENT/);
  });
});

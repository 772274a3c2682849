import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { DiskImgCreator, dirBytesAvailable, EventReasonToleratedSmallPV } from "./disk-img-creator.js";

const MiB = 1024n * 1024n;
const VMI_DISKS = "var/run/kubevirt-private/vmi-disks";
const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

function vmiWithHostDisk(capacity: string, type = "DiskOrCreate"): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: {
      domain: { devices: {} },
      volumes: [
        {
          name: "disk0",
          hostDisk: { path: "/var/run/kubevirt-private/vmi-disks/disk0/disk.img", type, capacity },
        },
      ],
    },
  };
}

describe("DiskImgCreator", () => {
  let root: string;
  let events: string[][];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "kvts-hostdisk-"));
    await mkdir(join(root, VMI_DISKS, "disk0"), { recursive: true });
    events = [];
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const creator = (available: bigint, toleration = 10) =>
    new DiskImgCreator({
      mountRoot: root,
      lessPVCSpaceToleration: toleration,
      minimumPVCReserveBytes: 131072,
      owner: me,
      recorder: { event: (_obj, type, reason, message) => void events.push([type, reason, message]) },
      dirBytesAvailable: () => Promise.resolve(available),
    });
  const image = () => join(root, VMI_DISKS, "disk0/disk.img");

  it("creates a sparse raw image of the capacity, owned as asked", async () => {
    await creator(10n * MiB).create(vmiWithHostDisk("2Mi"));
    const created = await stat(image());
    expect(created.size).toBe(2 * 1024 * 1024);
    // Sparse: one data block at most for the last byte.
    expect(created.blocks * 512).toBeLessThan(64 * 1024);
    expect([created.uid, created.gid]).toEqual([me.uid, me.gid]);
    expect(events).toEqual([]);
  });

  it("keeps an existing image untouched", async () => {
    await writeFile(image(), "guest data");
    await creator(10n * MiB).create(vmiWithHostDisk("2Mi"));
    expect((await stat(image())).size).toBe("guest data".length);
  });

  it("ignores hostDisks of type Disk", async () => {
    await creator(10n * MiB).create(vmiWithHostDisk("2Mi", "Disk"));
    expect(await readdir(join(root, VMI_DISKS, "disk0"))).toEqual([]);
  });

  it("shrinks to the space left within the toleration, with a ToleratedSmallPV event", async () => {
    await creator(95n * MiB).create(vmiWithHostDisk("100Mi"));
    expect(BigInt((await stat(image())).size)).toBe(95n * MiB);
    expect(events).toEqual([
      [
        "Normal",
        EventReasonToleratedSmallPV,
        `PV size too small: expected ${100n * MiB} B, found ${95n * MiB} B. Using it anyway, it is within 10 % toleration`,
      ],
    ]);
  });

  it("refuses when even the tolerated size does not fit", async () => {
    await expect(creator(80n * MiB).create(vmiWithHostDisk("100Mi"))).rejects.toThrow(
      `unable to create /var/run/kubevirt-private/vmi-disks/disk0/disk.img, not enough space, demanded size ${100n * MiB} B ` +
        `is bigger than available space ${80n * MiB} B, also after taking 10 % toleration into account`,
    );
    await expect(stat(image())).rejects.toThrow(/ENOENT/);
  });

  it("follows the pod's own symlinks inside its root, never out of it", async () => {
    const outside = await mkdtemp(join(tmpdir(), "kvts-hostdisk-node-"));
    try {
      await rm(join(root, VMI_DISKS, "disk0"), { recursive: true });
      await symlink(outside, join(root, VMI_DISKS, "disk0"));
      // The absolute target is read as a path inside the pod root, where nothing exists.
      await expect(creator(10n * MiB).create(vmiWithHostDisk("2Mi"))).rejects.toThrow(/Resolve diskdir/);
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("refuses a disk.img that is a symlink", async () => {
    await writeFile(join(root, "elsewhere"), "");
    await symlink("/elsewhere", image());
    await expect(creator(10n * MiB).create(vmiWithHostDisk("2Mi"))).rejects.toThrow(/is a symlink/);
    expect((await stat(join(root, "elsewhere"))).size).toBe(0);
  });
});

describe("dirBytesAvailable", () => {
  it("subtracts the reserve and never goes below zero", async () => {
    const free = await dirBytesAvailable(tmpdir(), 0n);
    expect(free).toBeGreaterThan(0n);
    expect(await dirBytesAvailable(tmpdir(), free * 1000n)).toBe(0n);
  });
});

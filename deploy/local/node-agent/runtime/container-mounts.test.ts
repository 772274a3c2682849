import { describe, expect, it } from "vitest";
import { MountConfigError, resolveVolumeDevices, resolveVolumeMounts } from "./container-mounts.js";
import type { PreparedVolume } from "./volumes.js";

const volumes: PreparedVolume[] = [
  { name: "disk", source: "/dev/loop7", kind: "block" },
  { name: "data", source: "/node/mnt/disks/vol1", kind: "directory", readOnly: true },
  { name: "scratch", source: "/node/scratch", kind: "directory" },
];

describe("resolveVolumeMounts", () => {
  it("mounts a read-only claim read-only whatever the volumeMount says", async () => {
    const mounts = await resolveVolumeMounts("c", volumes, [
      { volume: "data", mountPath: "/data", readOnly: false },
      { volume: "scratch", mountPath: "/scratch", readOnly: false },
    ]);
    expect(mounts.map((m) => [m.destination, m.readOnly])).toEqual([
      ["/data", true],
      ["/scratch", false],
    ]);
  });

  it("refuses to mount a block volume", async () => {
    const attempt = resolveVolumeMounts("c", volumes, [{ volume: "disk", mountPath: "/d", readOnly: false }]);
    await expect(attempt).rejects.toBeInstanceOf(MountConfigError);
    await expect(attempt).rejects.toThrow('volume "disk" is a block volume');
  });
});

describe("resolveVolumeDevices", () => {
  it("maps a block volume's device to its device path", () => {
    expect(resolveVolumeDevices("c", volumes, [{ volume: "disk", devicePath: "/dev/bootdisk" }])).toEqual([
      { hostPath: "/dev/loop7", containerPath: "/dev/bootdisk" },
    ]);
  });

  it.each([
    ["a directory volume", "data", "/dev/x", 'volume "data" is not a block volume'],
    ["an unknown volume", "nope", "/dev/x", 'cannot find volume "nope" to map into container "c"'],
    ["a relative device path", "disk", "dev/x", 'device path "dev/x" must be absolute'],
  ])("refuses %s", (_what, volume, devicePath, message) => {
    expect(() => resolveVolumeDevices("c", volumes, [{ volume, devicePath }])).toThrow(message);
  });
});

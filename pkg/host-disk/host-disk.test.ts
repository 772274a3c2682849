import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, Volume, VolumeStatus } from "../api/generated/v1.js";
import { alignImageSizeTo1MiB, replacePVCByHostDisk } from "./host-disk.js";

type ClaimInfo = NonNullable<VolumeStatus["persistentVolumeClaimInfo"]>;

function vmiWith(
  volumes: Volume[],
  statuses: VolumeStatus[],
  filesystems: string[] = [],
): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: {
      domain: { devices: { filesystems: filesystems.map((name) => ({ name, virtiofs: {} })) } },
      volumes,
    },
    status: { volumeStatus: statuses },
  };
}

const claimStatus = (name: string, info: ClaimInfo, extra: Partial<VolumeStatus> = {}): VolumeStatus => ({
  name,
  target: "",
  persistentVolumeClaimInfo: { claimName: name, ...info },
  ...extra,
});

const pvcVolume = (name: string): Volume => ({ name, persistentVolumeClaim: { claimName: name } });

describe("replacePVCByHostDisk", () => {
  it("turns a Filesystem claim into a DiskOrCreate hostDisk at <vmi-disks>/<volume>/disk.img", () => {
    const vmi = vmiWith(
      [pvcVolume("rootdisk")],
      [
        claimStatus("rootdisk", {
          volumeMode: "Filesystem",
          capacity: { storage: "2Gi" },
          requests: { storage: "2Gi" },
        }),
      ],
    );
    replacePVCByHostDisk(vmi);
    expect(vmi.spec.volumes?.[0]).toEqual({
      name: "rootdisk",
      hostDisk: {
        path: "/var/run/kubevirt-private/vmi-disks/rootdisk/disk.img",
        type: "DiskOrCreate",
        capacity: "2Gi",
        shared: false,
      },
    });
  });

  it("replaces a dataVolume too, and marks a ReadWriteMany claim shared", () => {
    const vmi = vmiWith(
      [{ name: "dv", dataVolume: { name: "dv" } }],
      [claimStatus("dv", { accessModes: ["ReadWriteMany"], capacity: { storage: "1Gi" } })],
    );
    replacePVCByHostDisk(vmi);
    expect(vmi.spec.volumes?.[0]?.dataVolume).toBeUndefined();
    expect(vmi.spec.volumes?.[0]?.hostDisk).toMatchObject({ capacity: "1Gi", shared: true });
  });

  it.each([
    [
      "the smaller request wins over a larger capacity",
      { capacity: { storage: "2Gi" }, requests: { storage: "1Gi" } },
      "1Gi",
    ],
    [
      "capacity wins over a larger request",
      { capacity: { storage: "1Gi" }, requests: { storage: "2Gi" } },
      "1Gi",
    ],
    ["the request alone", { requests: { storage: "3Gi" } }, "3Gi"],
    [
      "a misaligned size is rounded down to the MiB, keeping its format",
      { capacity: { storage: "1048577" } },
      "1048576",
    ],
  ])("%s", (_case, info, expected) => {
    const vmi = vmiWith([pvcVolume("disk")], [claimStatus("disk", info as ClaimInfo)]);
    replacePVCByHostDisk(vmi);
    expect(vmi.spec.volumes?.[0]?.hostDisk?.capacity).toBe(expected);
  });

  it.each([
    ["a Block claim", [claimStatus("disk", { volumeMode: "Block", capacity: { storage: "1Gi" } })], []],
    ["a volume without claim status", [], []],
    [
      "a hotplugged volume",
      [claimStatus("disk", { capacity: { storage: "1Gi" } }, { hotplugVolume: { attachPodName: "hp" } })],
      [],
    ],
    ["a virtiofs share", [claimStatus("disk", { capacity: { storage: "1Gi" } })], ["disk"]],
  ])("leaves %s alone", (_case, statuses, filesystems) => {
    const vmi = vmiWith([pvcVolume("disk")], statuses, filesystems);
    replacePVCByHostDisk(vmi);
    expect(vmi.spec.volumes?.[0]).toEqual(pvcVolume("disk"));
  });

  it("refuses a claim that states no size", () => {
    const vmi = vmiWith([pvcVolume("disk")], [claimStatus("disk", {})]);
    expect(() => replacePVCByHostDisk(vmi)).toThrow(
      "unable to determine capacity of HostDisk from PVC that provides no storage capacity or requests",
    );
  });

  it("refuses a claim smaller than 1MiB", () => {
    const vmi = vmiWith([pvcVolume("disk")], [claimStatus("disk", { capacity: { storage: "1000Ki" } })]);
    expect(() => replacePVCByHostDisk(vmi)).toThrow(
      "the size for volume disk is too low, must be at least 1MiB",
    );
  });
});

describe("alignImageSizeTo1MiB", () => {
  it("rounds down to whole MiBs", () => {
    expect(alignImageSizeTo1MiB(3n * 1024n * 1024n + 5n)).toBe(3n * 1024n * 1024n);
    expect(alignImageSizeTo1MiB(1024n * 1024n)).toBe(1024n * 1024n);
    expect(alignImageSizeTo1MiB(1023n)).toBe(0n);
  });
});

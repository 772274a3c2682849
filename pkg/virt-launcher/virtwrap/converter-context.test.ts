import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { LauncherLayout } from "../layout.js";
import { DEFAULT_LAYOUT } from "../layout.js";
import { blockClaimVolumes, isBlockDevice, launcherConverterContext } from "./converter-context.js";
import { upstreamLayoutContext } from "./converter/context.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: "uid-1" },
  spec: {
    domain: { devices: {} },
    volumes: [
      { name: "cloudinit", cloudInitNoCloud: { userData: "x" } },
      { name: "rootdisk", containerDisk: { image: "img" } },
      { name: "scratch", emptyDisk: { capacity: "1Gi" } },
      { name: "configdrive", cloudInitConfigDrive: { userData: "x" } },
      { name: "fsclaim", persistentVolumeClaim: { claimName: "fs" } },
      { name: "blockclaim", persistentVolumeClaim: { claimName: "block" } },
      { name: "dv", dataVolume: { name: "dv" } },
      { name: "base", ephemeral: { persistentVolumeClaim: { claimName: "golden" } } },
      { name: "host", hostDisk: { path: "/data/vms/host.img", type: "Disk" } },
      { name: "cm", configMap: { name: "app-config" } },
      { name: "sec", secret: { secretName: "app-secret" } },
      { name: "down", downwardAPI: { fields: [] } },
      { name: "sa", serviceAccount: { serviceAccountName: "default" } },
    ],
  },
};

const inputs = {
  allowEmulation: true,
  hypervisorDeviceAvailable: false,
  containerDiskFormats: new Map([["rootdisk", "qcow2"]]),
  interfaces: new Map(),
  blockVolumes: new Set(["blockclaim"]),
  options: null,
};

describe("the launcher's converter context", () => {
  it("matches upstream's paths inside a launcher pod", () => {
    const ours = launcherConverterContext(vmi, DEFAULT_LAYOUT, inputs);
    const upstream = upstreamLayoutContext(vmi, {
      allowEmulation: true,
      hypervisorDeviceAvailable: false,
      containerDiskFormat: () => "qcow2",
      blockVolumes: new Set(["blockclaim"]),
    });
    expect(ours.volumes).toEqual(upstream.volumes);
    expect(ours.blockVolumes).toEqual(upstream.blockVolumes);
    expect(ours.serialConsoleSocket).toBe("/var/run/kubevirt-private/uid-1/virt-serial0");
    expect(ours.vncSocket).toBe(upstream.vncSocket);
    expect(ours.kernelBootDir).toBe(upstream.kernelBootDir);
    expect(ours.hotplugDiskDir).toBe("/var/run/kubevirt/hotplug-disks");
    expect(ours.hotplugDiskDir).toBe(upstream.hotplugDiskDir);
  });

  it("splits the volume statuses into hotplugged and permanent volumes, as upstream's manager", () => {
    const hotplug = { name: "hp", target: "", hotplugVolume: {}, phase: "MountedToPod" };
    const withStatus: VirtualMachineInstance = {
      ...vmi,
      status: { volumeStatus: [{ name: "rootdisk", target: "vda" }, hotplug] },
    };
    const context = launcherConverterContext(withStatus, DEFAULT_LAYOUT, inputs);
    expect([...context.permanentVolumes]).toEqual(["rootdisk"]);
    expect([...context.hotplugVolumes]).toEqual([["hp", hotplug]]);
  });

  it("follows a launcher's own dirs", () => {
    const layout: LauncherLayout = {
      virtShareDir: "/t/share",
      ephemeralDiskDir: "/t/eph",
      containerDiskDir: "/t/cd",
      privateDir: "/t/private",
      runDir: "/t/run",
    };
    const context = launcherConverterContext(vmi, layout, inputs);
    expect(context.serialConsoleSocket).toBe("/t/private/uid-1/virt-serial0");
    expect(context.hotplugDiskDir).toBe("/t/share/hotplug-disks");
    expect(Object.fromEntries(context.volumes)).toEqual({
      cloudinit: { kind: "cloudInitNoCloud", isoPath: "/t/eph/cloud-init-data/default/testvmi/noCloud.iso" },
      rootdisk: {
        kind: "containerDisk",
        overlayPath: "/t/eph/disk-data/rootdisk/disk.qcow2",
        imagePath: "/t/cd/disk_1.img",
        imageFormat: "qcow2",
      },
      scratch: { kind: "emptyDisk", path: "/t/run/libvirt/empty-disks/scratch.qcow2" },
      configdrive: {
        kind: "cloudInitConfigDrive",
        isoPath: "/t/eph/cloud-init-data/default/testvmi/configdrive.iso",
      },
      fsclaim: {
        kind: "persistentVolumeClaim",
        devicePath: "/dev/fsclaim",
        imagePath: "/t/private/vmi-disks/fsclaim/disk.img",
      },
      blockclaim: {
        kind: "persistentVolumeClaim",
        devicePath: "/dev/blockclaim",
        imagePath: "/t/private/vmi-disks/blockclaim/disk.img",
      },
      dv: { kind: "dataVolume", devicePath: "/dev/dv", imagePath: "/t/private/vmi-disks/dv/disk.img" },
      base: {
        kind: "ephemeral",
        overlayPath: "/t/eph/disk-data/base/disk.qcow2",
        devicePath: "/dev/base",
        imagePath: "/t/private/vmi-disks/base/disk.img",
      },
      host: { kind: "hostDisk", path: "/t/private/vmi-disks/host/host.img" },
      cm: { kind: "configMap", isoPath: "/t/private/config-map-disks/cm.iso" },
      sec: { kind: "secret", isoPath: "/t/private/secret-disks/sec.iso" },
      down: { kind: "downwardAPI", isoPath: "/t/private/downwardapi-disks/down.iso" },
      sa: { kind: "serviceAccount", isoPath: "/t/private/service-account-disk/service-account.iso" },
    });
    expect([...context.blockVolumes]).toEqual(["blockclaim"]);
  });

  describe("which claims are in Block mode", () => {
    const devices = new Set(["/dev/blockclaim", "/dev/dv", "/dev/base", "/dev/cm", "/dev/scratch"]);
    const isBlock = (path: string): boolean => devices.has(path);

    it("are the claim-backed volumes whose /dev/<volume> is a block device", () => {
      // A configMap or emptyDisk named like a device is not a claim, whatever /dev holds.
      expect([...blockClaimVolumes(vmi, DEFAULT_LAYOUT, isBlock)].sort()).toEqual([
        "base",
        "blockclaim",
        "dv",
      ]);
    });

    it("are, for a hotplugged volume, the ones whose device virt-handler made in the hotplug dir", () => {
      const hotplugged: VirtualMachineInstance = {
        ...vmi,
        status: {
          volumeStatus: [
            { name: "dv", target: "", hotplugVolume: {} },
            { name: "fsclaim", target: "", hotplugVolume: {} },
          ],
        },
      };
      expect([...blockClaimVolumes(hotplugged, DEFAULT_LAYOUT, isBlock)].sort()).toEqual([
        "base",
        "blockclaim",
      ]);
      const inHotplugDir = (path: string): boolean => path === "/var/run/kubevirt/hotplug-disks/fsclaim";
      expect([...blockClaimVolumes(hotplugged, DEFAULT_LAYOUT, inHotplugDir)]).toEqual(["fsclaim"]);
    });

    it("are found by stat in the launcher: a regular file or nothing at all is not a block device", () => {
      const dir = mkdtempSync(join(tmpdir(), "block-claims-"));
      try {
        writeFileSync(join(dir, "disk.img"), "");
        expect(isBlockDevice(join(dir, "disk.img"))).toBe(false);
        expect(isBlockDevice(join(dir, "missing"))).toBe(false);
        expect(isBlockDevice(dir)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it.runIf(existsSync("/dev/loop0") && statSync("/dev/loop0").isBlockDevice())(
      "are found by stat in the launcher: a block device node is one",
      () => {
        expect(isBlockDevice("/dev/loop0")).toBe(true);
      },
    );
  });

  it("takes the cluster settings virt-handler sent with the sync", () => {
    const context = launcherConverterContext(vmi, DEFAULT_LAYOUT, {
      ...inputs,
      options: {
        VirtualMachineSMBios: {
          manufacturer: "KubeVirt",
          product: "None",
          version: "",
          sku: "",
          family: "KubeVirt",
        },
        MemBalloonStatsPeriod: 10,
        PreallocatedVolumes: [],
        topology: null,
        DisksInfo: {},
        ExpandDisksEnabled: false,
        clusterConfig: {
          ExpandDisksEnabled: false,
          FreePageReportingDisabled: true,
          BochsDisplayForEFIGuests: false,
          SerialConsoleLogDisabled: true,
          PCINUMAAwareTopologyEnabled: false,
          VGPULiveMigrationEnabled: false,
          GraceIOVirtualizationEnabled: false,
        },
        interfaceDomainAttachment: {},
        interfaceMigration: {},
        pluginsJson: Buffer.alloc(0),
        GraceHostDeviceAliases: [],
      },
    });
    expect(context).toMatchObject({
      memBalloonStatsPeriod: 10,
      serialConsoleLogDisabled: true,
      freePageReportingDisabled: true,
      smbios: { manufacturer: "KubeVirt", family: "KubeVirt" },
    });
  });
});

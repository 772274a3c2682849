import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { LauncherLayout } from "../layout.js";
import { DEFAULT_LAYOUT } from "../layout.js";
import { launcherConverterContext } from "./converter-context.js";
import { upstreamLayoutContext } from "./converter/context.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: "uid-1" },
  spec: {
    domain: { devices: {} },
    volumes: [
      { name: "cloudinit", cloudInitNoCloud: { userData: "x" } },
      { name: "rootdisk", containerDisk: { image: "img" } },
      { name: "scratch", emptyDisk: { capacity: "1Gi" } },
    ],
  },
};

const inputs = {
  allowEmulation: true,
  hypervisorDeviceAvailable: false,
  containerDiskFormats: new Map([["rootdisk", "qcow2"]]),
  interfaces: new Map(),
  options: null,
};

describe("the launcher's converter context", () => {
  it("matches upstream's paths inside a launcher pod", () => {
    const ours = launcherConverterContext(vmi, DEFAULT_LAYOUT, inputs);
    const upstream = upstreamLayoutContext(vmi, {
      allowEmulation: true,
      hypervisorDeviceAvailable: false,
      containerDiskFormat: () => "qcow2",
    });
    expect(ours.volumes).toEqual(upstream.volumes);
    expect(ours.serialConsoleSocket).toBe("/var/run/kubevirt-private/uid-1/virt-serial0");
    expect(ours.vncSocket).toBe(upstream.vncSocket);
    expect(ours.kernelBootDir).toBe(upstream.kernelBootDir);
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
    expect(Object.fromEntries(context.volumes)).toEqual({
      cloudinit: { kind: "cloudInitNoCloud", isoPath: "/t/eph/cloud-init-data/default/testvmi/noCloud.iso" },
      rootdisk: {
        kind: "containerDisk",
        overlayPath: "/t/eph/disk-data/rootdisk/disk.qcow2",
        imagePath: "/t/cd/disk_1.img",
        imageFormat: "qcow2",
      },
      scratch: { kind: "emptyDisk", path: "/t/run/libvirt/empty-disks/scratch.qcow2" },
    });
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

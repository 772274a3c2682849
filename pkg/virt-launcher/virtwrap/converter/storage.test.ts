import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Disk, VirtualMachineInstance, Volume } from "../../../api/generated/v1.js";
import { convertVMIToDomain } from "./converter.js";
import { deviceNameIndex, formatDeviceName } from "./storage.js";
import { defaultedVMI, domainXMLOf, testContext } from "./testing.js";

const containerDisk: Volume = { name: "root", containerDisk: { image: "kubevirt-ts/test-guest:latest" } };
const emptyDisk: Volume = { name: "scratch", emptyDisk: { capacity: "1Gi" } };
const cloudInit: Volume = { name: "cloudinit", cloudInitNoCloud: { userData: "#cloud-config\n" } };

function vmiWith(disks: Disk[], volumes: Volume[]): VirtualMachineInstance {
  return defaultedVMI({ domain: { devices: { disks } }, volumes });
}

const overlay = "/var/run/kubevirt-ephemeral-disks/disk-data/root/disk.qcow2";
const image = "/var/run/kubevirt/container-disks/disk_0.img";
const iso = "/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/testvmi/noCloud.iso";

interface Row {
  rule: string;
  disks: Disk[];
  volumes: Volume[];
  contains: string[];
  absent?: string[];
}

const rows: Row[] = [
  {
    rule: "a containerDisk as a qcow2 overlay over the read-only image, virtio as vda",
    disks: [{ name: "root", disk: { bus: "virtio" } }],
    volumes: [containerDisk],
    contains: [
      '<disk device="disk" type="file" model="virtio-non-transitional">' +
        `<source file="${overlay}"/><target bus="virtio" dev="vda"/>` +
        '<driver error_policy="stop" name="qemu" type="qcow2" discard="unmap"/><alias name="ua-root"/>' +
        `<backingStore type="file"><format type="qcow2"/><source file="${image}"/></backingStore></disk>`,
    ],
  },
  {
    rule: "an emptyDisk as a qcow2 file on SATA as sda",
    disks: [{ name: "scratch", disk: { bus: "sata" } }],
    volumes: [emptyDisk],
    contains: [
      '<disk device="disk" type="file"><source file="/var/run/libvirt/empty-disks/scratch.qcow2"/>' +
        '<target bus="sata" dev="sda"/><driver error_policy="stop" name="qemu" type="qcow2" discard="unmap"/>',
    ],
  },
  {
    rule: "cloud-init NoCloud as a read-only SATA CD-ROM with its tray closed",
    disks: [{ name: "cloudinit", cdrom: { bus: "sata" } }],
    volumes: [cloudInit],
    contains: [
      `<disk device="cdrom" type="file"><source file="${iso}"/><target bus="sata" dev="sda" tray="closed"/>` +
        '<driver error_policy="stop" name="qemu" type="raw"/><readonly/><alias name="ua-cloudinit"/></disk>',
    ],
  },
  {
    rule: "cloud-init NoCloud as a virtio disk",
    disks: [{ name: "cloudinit", disk: { bus: "virtio" } }],
    volumes: [cloudInit],
    contains: [`<source file="${iso}"/><target bus="virtio" dev="vda"/>`, 'type="raw" discard="unmap"'],
  },
  {
    rule: "names per bus prefix in disk order; SCSI disks addressed on controller 0 by unit",
    disks: [
      { name: "root", disk: { bus: "virtio" } },
      { name: "scratch", disk: { bus: "scsi" } },
      { name: "cloudinit", disk: { bus: "sata" } },
    ],
    volumes: [containerDisk, emptyDisk, cloudInit],
    contains: [
      '<target bus="virtio" dev="vda"/>',
      '<target bus="scsi" dev="sda"/>',
      '<address type="drive" bus="0" controller="0" unit="0"/>',
      '<target bus="sata" dev="sdb"/>',
    ],
  },
  {
    rule: "boot order, serial, cache, io and error policy as given",
    disks: [
      {
        name: "root",
        disk: { bus: "virtio", readonly: true },
        bootOrder: 1,
        serial: "ROOT-1",
        cache: "writethrough",
        io: "threads",
        errorPolicy: "report",
      },
    ],
    volumes: [containerDisk],
    contains: [
      "<serial>ROOT-1</serial>",
      '<driver cache="writethrough" error_policy="report" io="threads" name="qemu" type="qcow2" discard="unmap"/>',
      "<readonly/>",
      '<boot order="1"/>',
    ],
  },
  {
    rule: "a CD-ROM drive without a volume: an empty tray",
    disks: [{ name: "installer", cdrom: { bus: "sata" } }],
    volumes: [],
    contains: [
      '<disk device="cdrom" type="block"><source/><target bus="sata" dev="sda" tray="closed"/>' +
        '<driver error_policy="stop" name="qemu" type="raw" discard="unmap"/><readonly/>',
    ],
  },
];

describe("disks", () => {
  it.each(rows)("$rule", ({ disks, volumes, contains, absent = [] }) => {
    const xml = domainXMLOf(vmiWith(disks, volumes));
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it("gives virtio disks one queue per vCPU with blockMultiQueue", () => {
    const vmi = vmiWith([{ name: "root", disk: { bus: "virtio" } }], [containerDisk]);
    vmi.spec.domain.devices.blockMultiQueue = true;
    vmi.spec.domain.cpu = { sockets: 1, cores: 3, threads: 1 };
    expect(domainXMLOf(vmi)).toContain('queues="3"');
  });

  it("keeps the targets recorded in the VMI status and names new disks around them", () => {
    const vmi = vmiWith(
      [
        { name: "root", disk: { bus: "virtio" } },
        { name: "scratch", disk: { bus: "virtio" } },
      ],
      [containerDisk, emptyDisk],
    );
    vmi.status = {
      ...vmi.status,
      volumeStatus: [
        { name: "root", target: "" },
        { name: "scratch", target: "vda" },
      ],
    };
    const xml = domainXMLOf(vmi);
    expect(xml).toContain(
      '<target bus="virtio" dev="vdb"/><driver error_policy="stop" name="qemu" type="qcow2"',
    );
    expect(xml).toMatch(/empty-disks\/scratch\.qcow2"\/><target bus="virtio" dev="vda"\/>/);
  });

  it.each([
    [
      "a disk without a volume",
      [{ name: "data", disk: { bus: "virtio" } }],
      [],
      "no matching volume with name data found",
    ],
    [
      "an unrecognized bus",
      [{ name: "root", disk: { bus: "ide" } }],
      [containerDisk],
      "disk root has an unrecognized bus 'ide'",
    ],
    [
      "an unknown error policy",
      [{ name: "root", disk: { bus: "virtio" }, errorPolicy: "panic" }],
      [containerDisk],
      "error policy panic not recognized",
    ],
  ])("refuses %s", (_rule, disks: Disk[], volumes: Volume[], message) => {
    const vmi = vmiWith(disks, volumes);
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(message);
  });

  describe("a LUN", () => {
    const lunVMI = (lun: Disk["lun"], volume: Volume): VirtualMachineInstance =>
      vmiWith([{ name: volume.name, lun, serial: "LUN-1" }], [volume]);
    const blockClaim: Volume = { name: "lun0", persistentVolumeClaim: { claimName: "lun0" } };

    it("passes SCSI commands to a Block claim's device, addressed on the SCSI controller, without serial", () => {
      const xml = domainXMLOf(lunVMI({ bus: "scsi", readonly: true }, blockClaim), {
        blockVolumes: new Set(["lun0"]),
      });
      expect(xml).toContain(
        '<disk device="lun" type="block"><source dev="/dev/lun0"/><target bus="scsi" dev="sda"/>' +
          '<driver error_policy="stop" name="qemu" type="raw" discard="unmap"/><readonly/>' +
          '<alias name="ua-lun0"/><address type="drive" bus="0" controller="0" unit="0"/></disk>',
      );
      expect(xml).toContain('<controller type="scsi" index="0" model="virtio-non-transitional"/>');
    });

    it.each([
      ["a Filesystem claim", blockClaim],
      ["a containerDisk", containerDisk],
    ])("refuses %s, which is a file", (_what, volume) => {
      const vmi = lunVMI({ bus: "scsi" }, volume);
      expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(
        `device ${volume.name} is of type lun. Not compatible with a file based disk`,
      );
    });

    it("refuses a SCSI persistent reservation (no pr-helper yet) before converting anything", () => {
      const vmi = lunVMI({ bus: "scsi", reservation: true }, blockClaim);
      expect(() => convertVMIToDomain(vmi, testContext(vmi, { blockVolumes: new Set(["lun0"]) }))).toThrow(
        "spec.domain.devices.disks[0].lun.reservation is not supported by kubevirt-ts yet",
      );
    });
  });

  it("refuses a volume the launcher gave no files for", () => {
    const vmi = vmiWith([{ name: "root", disk: { bus: "virtio" } }], [containerDisk]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi, { volumes: new Map() }))).toThrow(
      "no disk info provided for volume root",
    );
  });
});

describe("hotplugged disks", () => {
  const hotplugDir = "/var/run/kubevirt/hotplug-disks";
  const hotplugVolume: Volume = {
    name: "hp",
    persistentVolumeClaim: { claimName: "hp-claim", hotpluggable: true },
  };
  const hotplugDV: Volume = { name: "hpdv", dataVolume: { name: "hpdv", hotpluggable: true } };

  /** A running VMI with a containerDisk, and hotplugged volumes in the phase given. */
  function hotplugVMI(
    bus: string,
    phase: string,
    volumes: Volume[] = [hotplugVolume],
  ): VirtualMachineInstance {
    const vmi = vmiWith(
      [
        { name: "root", disk: { bus: "virtio" } },
        ...volumes.map((volume) => ({ name: volume.name, disk: { bus } })),
      ],
      [containerDisk, ...volumes],
    );
    vmi.status = {
      ...vmi.status,
      volumeStatus: [
        { name: "root", target: "vda" },
        ...volumes.map((volume) => ({
          name: volume.name,
          target: "",
          phase,
          hotplugVolume: { attachPodName: "hp-volume-abcde", attachPodUID: "uid-2" },
        })),
      ],
    };
    return vmi;
  }

  it("a Filesystem claim is its disk.img, bind-mounted as <volume>.img in the hotplug dir", () => {
    const xml = domainXMLOf(hotplugVMI("scsi", "MountedToPod"));
    expect(xml).toContain(
      `<disk device="disk" type="file"><source file="${hotplugDir}/hp.img"/><target bus="scsi" dev="sda"/>` +
        '<driver error_policy="stop" name="qemu" type="raw" discard="unmap"/><alias name="ua-hp"/>' +
        '<address type="drive" bus="0" controller="0" unit="0"/></disk>',
    );
  });

  it("a Block claim is the device node <volume> virt-handler made in the hotplug dir", () => {
    const xml = domainXMLOf(hotplugVMI("virtio", "Ready"), { blockVolumes: new Set(["hp"]) });
    expect(xml).toContain(
      `<disk device="disk" type="block" model="virtio-non-transitional"><source dev="${hotplugDir}/hp"/>` +
        '<target bus="virtio" dev="vdb"/><driver error_policy="stop" name="qemu" type="raw" discard="unmap"/>' +
        '<alias name="ua-hp"/></disk>',
    );
  });

  it("a DataVolume likewise, in the launcher's own hotplug dir", () => {
    const vmi = hotplugVMI("scsi", "MountedToPod", [hotplugDV]);
    const xml = domainXMLOf(vmi, { hotplugDiskDir: "/t/share/hotplug-disks" });
    expect(xml).toContain('<source file="/t/share/hotplug-disks/hpdv.img"/><target bus="scsi" dev="sda"/>');
  });

  it("keeps the target virt-handler recorded for it", () => {
    const vmi = hotplugVMI("scsi", "Ready");
    const status = vmi.status?.volumeStatus?.[1];
    if (status) status.target = "sdc";
    expect(domainXMLOf(vmi)).toContain(`<source file="${hotplugDir}/hp.img"/><target bus="scsi" dev="sdc"/>`);
  });

  it.each(["", "Pending", "Bound", "AttachedToNode", "Detaching", "UnMountedFromPod"])(
    "is left out until it is mounted in the pod (phase %j)",
    (phase) => {
      const xml = domainXMLOf(hotplugVMI("scsi", phase));
      expect(xml).not.toContain("hotplug-disks");
      expect(xml).toContain('<alias name="ua-root"/>');
    },
  );

  it("leaves out a disk whose volume has no status while others have one, as upstream", () => {
    const vmi = hotplugVMI("scsi", "MountedToPod");
    vmi.status = { ...vmi.status, volumeStatus: [{ name: "root", target: "vda" }] };
    expect(domainXMLOf(vmi)).not.toContain('<alias name="ua-hp"/>');
  });

  it("refuses a hotplugged volume of a source that cannot be hotplugged", () => {
    const vmi = hotplugVMI("scsi", "MountedToPod", [emptyDisk]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(
      "hotplug disk scratch references an unsupported source",
    );
  });
});

describe("device names", () => {
  it.each([
    [0, "sda"],
    [25, "sdz"],
    [26, "sdaa"],
    [701, "sdzz"],
    [702, "sdaaa"],
  ])("index %d is %s", (index, name) => {
    expect(formatDeviceName("sd", index)).toBe(name);
    expect(deviceNameIndex("sd", name)).toBe(index);
  });

  it("reads back every index it writes", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 26 ** 4 }),
        (index) => deviceNameIndex("vd", formatDeviceName("vd", index)) === index,
      ),
    );
  });

  it.each(["vda", "sd", "sd1", "sdA"])("does not read %s as an sd name", (name) => {
    expect(deviceNameIndex("sd", name)).toBe(-1);
  });
});

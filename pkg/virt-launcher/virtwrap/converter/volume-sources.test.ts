// Each volume source as upstream v1.8.4 renders it (converter_test.go's domain template and its
// block-backing-store and CBT cases), with upstream's paths inside the launcher pod.
import { describe, expect, it } from "vitest";
import type { Disk, VirtualMachineInstance, Volume } from "../../../api/generated/v1.js";
import { runnable } from "../../../testutils/requirement.js";
import { newMinimalDomainSpec } from "../api/defaults.js";
import { marshalDomainXML } from "../api/domain-xml.js";
import { convertVMIToDomain } from "./converter.js";
import { configureDisks } from "./storage.js";
import { compactXML, defaultedVMI, testContext, virtXMLValidate, virtXMLValidateMissing } from "./testing.js";

function vmiWith(disks: Disk[], volumes: Volume[]): VirtualMachineInstance {
  return defaultedVMI({ domain: { devices: { disks } }, volumes });
}

/** The disks alone, so that sources outside the subset (dataVolume) are converted too. */
function disksXMLOf(vmi: VirtualMachineInstance, block: readonly string[] = []): string {
  const spec = newMinimalDomainSpec("default_testvmi");
  configureDisks(vmi, testContext(vmi, { blockVolumes: new Set(block) }), spec);
  return compactXML(marshalDomainXML(spec));
}

const withValidator = it.runIf(
  runnable(
    "the libvirt schema checks",
    virtXMLValidate("<domain/>") === undefined ? virtXMLValidateMissing : undefined,
  ),
);

const claim = (name: string): Volume => ({ name, persistentVolumeClaim: { claimName: `${name}-claim` } });
const ephemeral = (name: string): Volume => ({
  name,
  ephemeral: { persistentVolumeClaim: { claimName: "golden", readOnly: true } },
});
const sataDisk = (name: string, extra: Partial<Disk> = {}): Disk => ({
  name,
  disk: { bus: "sata" },
  ...extra,
});

const raw = '<driver error_policy="stop" name="qemu" type="raw"/>';
const rawDiscard = '<driver error_policy="stop" name="qemu" type="raw" discard="unmap"/>';
const qcow2Discard = '<driver error_policy="stop" name="qemu" type="qcow2" discard="unmap"/>';

interface Row {
  rule: string;
  disks: Disk[];
  volumes: Volume[];
  block?: string[];
  contains: string;
}

const rows: Row[] = [
  {
    rule: "a Filesystem claim: its raw disk.img in the claim's mount",
    disks: [sataDisk("data")],
    volumes: [claim("data")],
    contains:
      '<disk device="disk" type="file"><source file="/var/run/kubevirt-private/vmi-disks/data/disk.img"/>' +
      `<target bus="sata" dev="sda"/>${rawDiscard}<alias name="ua-data"/></disk>`,
  },
  {
    rule: "a Block claim: the raw device node /dev/<volume>",
    disks: [sataDisk("pvc_block_test")],
    volumes: [claim("pvc_block_test")],
    block: ["pvc_block_test"],
    contains:
      '<disk device="disk" type="block"><source dev="/dev/pvc_block_test"/>' +
      `<target bus="sata" dev="sda"/>${rawDiscard}<alias name="ua-pvc_block_test"/></disk>`,
  },
  {
    rule: "a dataVolume like a claim",
    disks: [sataDisk("dv_block_test")],
    volumes: [{ name: "dv_block_test", dataVolume: { name: "dv_block_test" } }],
    block: ["dv_block_test"],
    contains: '<disk device="disk" type="block"><source dev="/dev/dv_block_test"/>',
  },
  {
    rule: "a claim on a CD-ROM keeps discard (upstream sets it for every claim)",
    disks: [{ name: "media", cdrom: { bus: "sata" } }],
    volumes: [claim("media")],
    contains:
      '<source file="/var/run/kubevirt-private/vmi-disks/media/disk.img"/>' +
      `<target bus="sata" dev="sda" tray="closed"/>${rawDiscard}<readonly/>`,
  },
  {
    rule: "an ephemeral volume over a Filesystem claim: a qcow2 overlay backed by the raw disk.img",
    disks: [sataDisk("ephemeral_pvc")],
    volumes: [ephemeral("ephemeral_pvc")],
    contains:
      '<disk device="disk" type="file">' +
      '<source file="/var/run/kubevirt-ephemeral-disks/disk-data/ephemeral_pvc/disk.qcow2"/>' +
      `<target bus="sata" dev="sda"/>${qcow2Discard}<alias name="ua-ephemeral_pvc"/>` +
      '<backingStore type="file"><format type="raw"/>' +
      '<source file="/var/run/kubevirt-private/vmi-disks/ephemeral_pvc/disk.img"/></backingStore></disk>',
  },
  {
    rule: "an ephemeral volume over a Block claim: the overlay backed by the device node",
    disks: [sataDisk("base")],
    volumes: [ephemeral("base")],
    block: ["base"],
    contains: '<backingStore type="block"><format type="raw"/><source dev="/dev/base"/></backingStore>',
  },
  {
    rule: "a hostDisk: the raw image in the mount of its node directory",
    disks: [sataDisk("myvolume")],
    volumes: [{ name: "myvolume", hostDisk: { path: "/data/vms/myvolume.img", type: "DiskOrCreate" } }],
    contains:
      '<disk device="disk" type="file"><source file="/var/run/kubevirt-private/vmi-disks/myvolume/myvolume.img"/>' +
      `<target bus="sata" dev="sda"/>${rawDiscard}`,
  },
  {
    rule: "a hostDisk on a CD-ROM: no discard, read-only only as the CD-ROM says",
    disks: [{ name: "cdrom_tray_open", cdrom: { bus: "sata", tray: "open" } }],
    volumes: [
      {
        name: "cdrom_tray_open",
        hostDisk: { path: "/var/run/kubevirt-private/vmi-disks/volume1/disk.img", type: "Disk" },
      },
    ],
    contains:
      '<disk device="cdrom" type="file"><source file="/var/run/kubevirt-private/vmi-disks/cdrom_tray_open/disk.img"/>' +
      `<target bus="sata" dev="sda" tray="open"/>${raw}<readonly/>`,
  },
  {
    rule: "a secret: its raw ISO, with the disk's serial",
    disks: [sataDisk("secret_test", { serial: "D23YZ9W6WA5DJ487" })],
    volumes: [{ name: "secret_test", secret: { secretName: "testsecret" } }],
    contains:
      '<disk device="disk" type="file"><source file="/var/run/kubevirt-private/secret-disks/secret_test.iso"/>' +
      `<target bus="sata" dev="sda"/><serial>D23YZ9W6WA5DJ487</serial>${rawDiscard}<alias name="ua-secret_test"/></disk>`,
  },
  {
    rule: "a configMap: its raw ISO",
    disks: [sataDisk("configmap_test", { serial: "CVLY623300HK240D" })],
    volumes: [{ name: "configmap_test", configMap: { name: "testconfig" } }],
    contains:
      '<source file="/var/run/kubevirt-private/config-map-disks/configmap_test.iso"/>' +
      `<target bus="sata" dev="sda"/><serial>CVLY623300HK240D</serial>${rawDiscard}`,
  },
  {
    rule: "a downwardAPI volume: its raw ISO",
    disks: [sataDisk("labels")],
    volumes: [{ name: "labels", downwardAPI: { fields: [] } }],
    contains: `<source file="/var/run/kubevirt-private/downwardapi-disks/labels.iso"/><target bus="sata" dev="sda"/>${rawDiscard}`,
  },
  {
    rule: "a serviceAccount: the one service-account.iso",
    disks: [sataDisk("serviceaccount_test")],
    volumes: [{ name: "serviceaccount_test", serviceAccount: { serviceAccountName: "testaccount" } }],
    contains:
      '<source file="/var/run/kubevirt-private/service-account-disk/service-account.iso"/>' +
      `<target bus="sata" dev="sda"/>${rawDiscard}<alias name="ua-serviceaccount_test"/>`,
  },
  {
    rule: "a config volume on a CD-ROM: no discard, read-only",
    disks: [{ name: "cm", cdrom: { bus: "sata" } }],
    volumes: [{ name: "cm", configMap: { name: "testconfig" } }],
    contains:
      '<disk device="cdrom" type="file"><source file="/var/run/kubevirt-private/config-map-disks/cm.iso"/>' +
      `<target bus="sata" dev="sda" tray="closed"/>${raw}<readonly/>`,
  },
  {
    rule: "cloud-init ConfigDrive: its configdrive.iso beside NoCloud's",
    disks: [{ name: "cloudinit", cdrom: { bus: "sata" } }],
    volumes: [{ name: "cloudinit", cloudInitConfigDrive: { userData: "#cloud-config\n" } }],
    contains:
      '<source file="/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/testvmi/configdrive.iso"/>' +
      `<target bus="sata" dev="sda" tray="closed"/>${raw}<readonly/>`,
  },
];

describe("volume sources", () => {
  it.each(rows)("$rule", ({ disks, volumes, block = [], contains }) => {
    expect(disksXMLOf(vmiWith(disks, volumes), block)).toContain(contains);
  });

  it("names the claim-backed volumes the launcher found in Block mode only", () => {
    const vmi = vmiWith([sataDisk("a"), sataDisk("b")], [claim("a"), claim("b")]);
    const xml = disksXMLOf(vmi, ["b"]);
    expect(xml).toContain('<source file="/var/run/kubevirt-private/vmi-disks/a/disk.img"/>');
    expect(xml).toContain('<source dev="/dev/b"/>');
  });

  it("refuses a volume whose paths are of another source", () => {
    const vmi = vmiWith([sataDisk("data")], [claim("data")]);
    const volumes = new Map([["data", { kind: "hostDisk" as const, path: "/x/disk.img" }]]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi, { volumes }))).toThrow(
      "no disk info provided for volume data",
    );
  });

  it("refuses a volume of no source it knows", () => {
    const vmi = vmiWith([sataDisk("data")], [{ name: "data" }]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(
      "disk data references an unsupported source",
    );
  });

  withValidator("gives libvirt's schema a valid domain with every source of the subset", () => {
    const inSubset = rows.filter((row) => !row.volumes.some((volume) => volume.dataVolume));
    // And a LUN over a Block claim.
    const vmi = vmiWith(
      [...inSubset.flatMap((row) => row.disks), { name: "lun0", lun: { bus: "scsi" } }],
      [...inSubset.flatMap((row) => row.volumes), claim("lun0")],
    );
    const blockVolumes = new Set([...inSubset.flatMap((row) => row.block ?? []), "lun0"]);
    const xml = marshalDomainXML(convertVMIToDomain(vmi, testContext(vmi, { blockVolumes })).spec);
    expect(compactXML(xml)).toContain(
      '<backingStore type="block"><format type="raw"/><source dev="/dev/base"/>',
    );
    expect(compactXML(xml)).toContain('<disk device="lun" type="block"><source dev="/dev/lun0"/>');
    const result = virtXMLValidate(xml);
    expect(result?.valid, result?.output).toBe(true);
  });
});

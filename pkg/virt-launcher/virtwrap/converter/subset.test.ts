import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { convertVMIToDomain } from "./converter.js";
import { UnsupportedError } from "./errors.js";
import { unsupportedFields } from "./subset.js";
import { defaultedVMI, testContext } from "./testing.js";

type Change = (vmi: VirtualMachineInstance) => void;

const rows: Array<[string, Change, string]> = [
  [
    "GPUs",
    (vmi) => (vmi.spec.domain.devices.gpus = [{ name: "g", deviceName: "nvidia/T4" }]),
    "spec.domain.devices.gpus",
  ],
  [
    "host devices",
    (vmi) => (vmi.spec.domain.devices.hostDevices = [{ name: "h", deviceName: "x" }]),
    "spec.domain.devices.hostDevices",
  ],
  [
    "a LUN",
    (vmi) => (vmi.spec.domain.devices.disks = [{ name: "d", lun: { bus: "scsi" } }]),
    "spec.domain.devices.disks[0].lun",
  ],
  [
    "a disk at a PCI address",
    (vmi) =>
      (vmi.spec.domain.devices.disks = [{ name: "d", disk: { bus: "virtio", pciAddress: "0000:81:01.0" } }]),
    "spec.domain.devices.disks[0].disk.pciAddress",
  ],
  [
    "a dedicated I/O thread",
    (vmi) => (vmi.spec.domain.devices.disks = [{ name: "d", disk: {}, dedicatedIOThread: true }]),
    "spec.domain.devices.disks[0].dedicatedIOThread",
  ],
  [
    "a PVC",
    (vmi) => (vmi.spec.volumes = [{ name: "d", persistentVolumeClaim: { claimName: "c" } }]),
    "spec.volumes[0].persistentVolumeClaim",
  ],
  [
    "a DataVolume",
    (vmi) => (vmi.spec.volumes = [{ name: "d", dataVolume: { name: "dv" } }]),
    "spec.volumes[0].dataVolume",
  ],
  [
    "a hostDisk",
    (vmi) => (vmi.spec.volumes = [{ name: "d", hostDisk: { path: "/x", type: "Disk" } }]),
    "spec.volumes[0].hostDisk",
  ],
  [
    "cloud-init config drive",
    (vmi) => (vmi.spec.volumes = [{ name: "d", cloudInitConfigDrive: { userData: "x" } }]),
    "spec.volumes[0].cloudInitConfigDrive",
  ],
  [
    "SR-IOV",
    (vmi) => (vmi.spec.domain.devices.interfaces = [{ name: "default", sriov: {} }]),
    "spec.domain.devices.interfaces[0].sriov",
  ],
  [
    "a binding plugin (passt, vhostuser...)",
    (vmi) => (vmi.spec.domain.devices.interfaces = [{ name: "default", binding: { name: "passt" } }]),
    "spec.domain.devices.interfaces[0].binding",
  ],
  [
    "a Multus network",
    (vmi) => (vmi.spec.networks = [{ name: "default", multus: { networkName: "ns/net" } }]),
    "spec.networks[0].multus",
  ],
  [
    "dedicated CPUs",
    (vmi) => (vmi.spec.domain.cpu = { dedicatedCpuPlacement: true }),
    "spec.domain.cpu.dedicatedCpuPlacement",
  ],
  [
    "hugepages",
    (vmi) => (vmi.spec.domain.memory = { hugepages: { pageSize: "2Mi" } }),
    "spec.domain.memory.hugepages",
  ],
  [
    "EFI",
    (vmi) => (vmi.spec.domain.firmware = { bootloader: { efi: {} } }),
    "spec.domain.firmware.bootloader.efi",
  ],
  [
    "Hyper-V enlightenments",
    (vmi) => (vmi.spec.domain.features = { hyperv: {} }),
    "spec.domain.features.hyperv",
  ],
  ["I/O threads", (vmi) => (vmi.spec.domain.ioThreadsPolicy = "auto"), "spec.domain.ioThreadsPolicy"],
  ["a TPM", (vmi) => (vmi.spec.domain.devices.tpm = {}), "spec.domain.devices.tpm"],
  [
    "virtio multi-queue NICs",
    (vmi) => (vmi.spec.domain.devices.networkInterfaceMultiqueue = true),
    "spec.domain.devices.networkInterfaceMultiqueue",
  ],
  ["another architecture", (vmi) => (vmi.spec.architecture = "arm64"), "spec.architecture"],
  [
    "Ignition",
    (vmi) =>
      (vmi.metadata = { ...vmi.metadata, annotations: { "kubevirt.io/ignitiondata": '{"ignition":{}}' } }),
    "metadata.annotations[kubevirt.io/ignitiondata]",
  ],
  [
    "hook sidecars",
    (vmi) =>
      (vmi.metadata = {
        ...vmi.metadata,
        annotations: {
          "hooks.kubevirt.io/hookSidecars": '[{"image": "registry:5000/kubevirt/example-hook-sidecar"}]',
        },
      }),
    "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
  ],
];

describe("the implemented subset", () => {
  it.each(rows)("refuses %s, naming the field", (_what, change, field) => {
    const vmi = defaultedVMI();
    change(vmi);
    expect(unsupportedFields(vmi).map((cause) => cause.field)).toContain(field);
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(UnsupportedError);
    const cause = unsupportedFields(vmi).find((found) => found.field === field);
    expect(cause?.message).toMatch(/not supported yet$/);
  });

  it("lists every unsupported field, not just the first", () => {
    const vmi = defaultedVMI();
    for (const [, change] of rows) change(vmi);
    const error = (() => {
      try {
        convertVMIToDomain(vmi, testContext(vmi));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UnsupportedError);
    const fields = (error as UnsupportedError).causes.map((cause) => cause.field);
    // The last of the disk, volume and interface rows replaced the earlier ones.
    expect(fields).toEqual(
      expect.arrayContaining([
        "spec.domain.devices.gpus",
        "spec.architecture",
        "spec.volumes[0].cloudInitConfigDrive",
      ]),
    );
    expect(fields.length).toBeGreaterThanOrEqual(15);
  });

  it.each([
    [
      "dedicatedCpuPlacement: false",
      (vmi: VirtualMachineInstance) => (vmi.spec.domain.cpu = { dedicatedCpuPlacement: false }),
    ],
    ["an empty GPU list", (vmi: VirtualMachineInstance) => (vmi.spec.domain.devices.gpus = [])],
    [
      "acpiIndex 0",
      (vmi: VirtualMachineInstance) =>
        (vmi.spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, acpiIndex: 0 }]),
    ],
    [
      "placePCIDevicesOnRootComplex: false",
      (vmi: VirtualMachineInstance) =>
        (vmi.metadata = {
          ...vmi.metadata,
          annotations: { "kubevirt.io/placePCIDevicesOnRootComplex": "false" },
        }),
    ],
  ])("accepts fields that ask for nothing: %s", (_what, change) => {
    const vmi = defaultedVMI();
    change(vmi);
    expect(unsupportedFields(vmi)).toEqual([]);
  });
});

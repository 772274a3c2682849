// The implemented subset: every use outside it is one finding with its field and one sentence; what the
// skeleton builds, and fields that ask for nothing, pass untouched.
import { describe, expect, it } from "vitest";
import { Path } from "../api/field.js";
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import {
  notYetSupportedInMetadata,
  notYetSupportedInSpec,
  notYetSupportedInVMI,
  notYetSupportedMessage,
} from "./supported-subset.js";

/** The skeleton's VMI spec: containerDisk + cloud-init, masquerade on the pod network, as defaulted. */
function skeletonSpec(): VirtualMachineInstanceSpec {
  return {
    architecture: "amd64",
    domain: {
      resources: { requests: { memory: "64Mi" } },
      cpu: { cores: 2, sockets: 1, threads: 1, model: "host-model" },
      machine: { type: "q35" },
      firmware: { uuid: "6b1f0c36-0c5d-4a57-a7c4-2f8f2c1b9e01", bootloader: { bios: {} } },
      features: { acpi: {} },
      devices: {
        disks: [
          { name: "containerdisk", disk: { bus: "virtio" } },
          { name: "cloudinitdisk", cdrom: { bus: "sata" } },
          { name: "scratch", disk: { bus: "virtio" }, bootOrder: 2 },
        ],
        interfaces: [{ name: "default", masquerade: {}, ports: [{ port: 22 }] }],
        rng: {},
      },
    },
    evictionStrategy: "None",
    nodeSelector: { "kubernetes.io/arch": "amd64" },
    networks: [{ name: "default", pod: {} }],
    volumes: [
      { name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } },
      { name: "cloudinitdisk", cloudInitNoCloud: { userData: "#cloud-config\n" } },
      { name: "scratch", emptyDisk: { capacity: "1Gi" } },
    ],
  };
}

function specWith(change: (spec: VirtualMachineInstanceSpec) => void): VirtualMachineInstanceSpec {
  const spec = skeletonSpec();
  change(spec);
  return spec;
}

const VOLUME_HINT =
  "(supported: containerDisk, cloudInitNoCloud, cloudInitConfigDrive, emptyDisk, ephemeral, " +
  "persistentVolumeClaim, dataVolume, hostDisk, configMap, secret, serviceAccount, downwardAPI)";
const BINDING_HINT = "(supported: masquerade, bridge)";
/** The expected sentence, written out independently of notYetSupportedMessage. */
const yet = (subject: string, hint?: string): string =>
  `${subject} is not supported by kubevirt-ts yet${hint === undefined ? "" : ` ${hint}`}`;

type Change = (spec: VirtualMachineInstanceSpec) => void;

/** One row per feature: the change, the one field it is refused at, and the exact message. */
const rows: Array<[string, Change, string, string]> = [
  [
    "GPUs",
    (s) => (s.domain.devices.gpus = [{ name: "g", deviceName: "nvidia/T4" }]),
    "spec.domain.devices.gpus",
    yet("GPU passthrough"),
  ],
  [
    "host devices",
    (s) => (s.domain.devices.hostDevices = [{ name: "h", deviceName: "x" }]),
    "spec.domain.devices.hostDevices",
    yet("host device passthrough"),
  ],
  [
    "resource claims",
    (s) => (s.resourceClaims = [{ name: "c" }]),
    "spec.resourceClaims",
    yet("dynamic resource allocation (resourceClaims)"),
  ],
  [
    "kernel boot",
    (s) =>
      (s.domain.firmware = {
        kernelBoot: { container: { image: "quay.io/kubevirt/alpine-ext-kernel-boot-demo" } },
      }),
    "spec.domain.firmware.kernelBoot",
    yet("spec.domain.firmware.kernelBoot"),
  ],
  [
    "a LUN with a SCSI persistent reservation",
    (s) => (s.domain.devices.disks = [{ name: "containerdisk", lun: { bus: "scsi", reservation: true } }]),
    "spec.domain.devices.disks[0].lun.reservation",
    yet("spec.domain.devices.disks[0].lun.reservation"),
  ],
  [
    "a disk at a PCI address",
    (s) => (s.domain.devices.disks = [{ name: "d", disk: { bus: "virtio", pciAddress: "0000:81:01.0" } }]),
    "spec.domain.devices.disks[0].disk.pciAddress",
    yet("spec.domain.devices.disks[0].disk.pciAddress"),
  ],
  [
    "a dedicated I/O thread",
    (s) => (s.domain.devices.disks = [{ name: "d", disk: {}, dedicatedIOThread: true }]),
    "spec.domain.devices.disks[0].dedicatedIOThread",
    yet("spec.domain.devices.disks[0].dedicatedIOThread"),
  ],
  [
    "a downwardMetrics volume",
    (s) => s.volumes?.push({ name: "dm", downwardMetrics: {} }),
    "spec.volumes[3].downwardMetrics",
    yet("the downwardMetrics volume source", VOLUME_HINT),
  ],
  [
    "SR-IOV",
    (s) => (s.domain.devices.interfaces = [{ name: "default", sriov: {} }]),
    "spec.domain.devices.interfaces[0].sriov",
    yet("the sriov interface binding", BINDING_HINT),
  ],
  [
    "a binding plugin",
    (s) => (s.domain.devices.interfaces = [{ name: "default", binding: { name: "passt" } }]),
    "spec.domain.devices.interfaces[0].binding",
    yet("a network binding plugin", BINDING_HINT),
  ],
  [
    "a NIC at a PCI address",
    (s) => (s.domain.devices.interfaces = [{ name: "default", masquerade: {}, pciAddress: "0000:81:00.1" }]),
    "spec.domain.devices.interfaces[0].pciAddress",
    yet("spec.domain.devices.interfaces[0].pciAddress"),
  ],
  [
    "a network backed by a resource claim",
    (s) => (s.networks = [{ name: "default", resourceClaim: { claimName: "c", requestName: "r" } }]),
    "spec.networks[0].resourceClaim",
    yet("the resourceClaim network source", "(supported: pod, multus)"),
  ],
  [
    "dedicated CPUs",
    (s) => (s.domain.cpu = { dedicatedCpuPlacement: true }),
    "spec.domain.cpu.dedicatedCpuPlacement",
    yet("spec.domain.cpu.dedicatedCpuPlacement"),
  ],
  [
    "hugepages",
    (s) => (s.domain.memory = { hugepages: { pageSize: "2Mi" } }),
    "spec.domain.memory.hugepages",
    yet("spec.domain.memory.hugepages"),
  ],
  [
    "EFI",
    (s) => (s.domain.firmware = { bootloader: { efi: {} } }),
    "spec.domain.firmware.bootloader.efi",
    yet("spec.domain.firmware.bootloader.efi"),
  ],
  [
    "Hyper-V enlightenments",
    (s) => (s.domain.features = { hyperv: {} }),
    "spec.domain.features.hyperv",
    yet("spec.domain.features.hyperv"),
  ],
  [
    "I/O threads",
    (s) => (s.domain.ioThreadsPolicy = "auto"),
    "spec.domain.ioThreadsPolicy",
    yet("spec.domain.ioThreadsPolicy"),
  ],
  ["a TPM", (s) => (s.domain.devices.tpm = {}), "spec.domain.devices.tpm", yet("spec.domain.devices.tpm")],
  [
    "virtio multi-queue NICs",
    (s) => (s.domain.devices.networkInterfaceMultiqueue = true),
    "spec.domain.devices.networkInterfaceMultiqueue",
    yet("spec.domain.devices.networkInterfaceMultiqueue"),
  ],
  [
    "another architecture",
    (s) => (s.architecture = "arm64"),
    "spec.architecture",
    yet("the arm64 architecture", "(supported: amd64)"),
  ],
];

describe("the implemented subset", () => {
  it("leaves the skeleton's VMI alone, and what other components act on", () => {
    expect(notYetSupportedInSpec(Path.of("spec"), skeletonSpec())).toEqual([]);
    const bridge = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", bridge: {} }]));
    expect(notYetSupportedInSpec(Path.of("spec"), bridge)).toEqual([]);
  });

  it.each(rows)("refuses %s at its field, in one sentence", (_what, change, field, message) => {
    const found = notYetSupportedInSpec(Path.of("spec"), specWith(change));
    expect(found.map((use) => ({ field: use.field.toString(), message: use.message }))).toEqual([
      { field, message },
    ]);
  });

  it("names the template's fields in a VM or replica set", () => {
    const spec = specWith((s) => (s.domain.devices.tpm = {}));
    const [found] = notYetSupportedInSpec(Path.of("spec", "template", "spec"), spec);
    expect(found?.field.toString()).toBe("spec.template.spec.domain.devices.tpm");
    expect(found?.message).toBe(yet("spec.template.spec.domain.devices.tpm"));
  });

  it("lists every use, not just the first", () => {
    const spec = specWith((s) => {
      for (const [, change] of rows) change(s);
    });
    const fields = notYetSupportedInSpec(Path.of("spec"), spec).map((use) => use.field.toString());
    // The last disk, volume, interface and network rows replaced the earlier ones.
    expect(fields).toEqual(
      expect.arrayContaining([
        "spec.domain.devices.gpus",
        "spec.resourceClaims",
        "spec.domain.devices.tpm",
        "spec.volumes[3].downwardMetrics",
        "spec.networks[0].resourceClaim",
        "spec.architecture",
      ]),
    );
    expect(new Set(fields).size).toBe(fields.length);
    expect(fields.length).toBeGreaterThanOrEqual(15);
  });

  it.each<[string, Change]>([
    ["dedicatedCpuPlacement: false", (s) => (s.domain.cpu = { dedicatedCpuPlacement: false })],
    ["an empty GPU list", (s) => (s.domain.devices.gpus = [])],
    ["empty resource claims", (s) => (s.resourceClaims = [])],
    [
      "Multus networks",
      (s) =>
        (s.networks = [
          { name: "default", pod: {} },
          { name: "blue", multus: { networkName: "ns/blue" } },
        ]),
    ],
    [
      "acpiIndex 0",
      (s) => (s.domain.devices.interfaces = [{ name: "default", masquerade: {}, acpiIndex: 0 }]),
    ],
    // The storage volume sources and LUN disks of the storage issue.
    ["a PVC", (s) => s.volumes?.push({ name: "d", persistentVolumeClaim: { claimName: "c" } })],
    ["a hostDisk", (s) => s.volumes?.push({ name: "d", hostDisk: { path: "/x", type: "Disk" } })],
    [
      "cloud-init config drive",
      (s) => s.volumes?.push({ name: "d", cloudInitConfigDrive: { userData: "x" } }),
    ],
    [
      "an ephemeral PVC",
      (s) => s.volumes?.push({ name: "d", ephemeral: { persistentVolumeClaim: { claimName: "c" } } }),
    ],
    ["a configMap", (s) => s.volumes?.push({ name: "d", configMap: { name: "cm" } })],
    ["a secret", (s) => s.volumes?.push({ name: "d", secret: { secretName: "s" } })],
    ["a serviceAccount", (s) => s.volumes?.push({ name: "d", serviceAccount: { serviceAccountName: "sa" } })],
    ["a downwardAPI", (s) => s.volumes?.push({ name: "d", downwardAPI: { fields: [] } })],
    ["a LUN", (s) => s.domain.devices.disks?.push({ name: "d", lun: { bus: "scsi", readonly: true } })],
  ])("accepts what is implemented, or fields that ask for nothing: %s", (_what, change) => {
    expect(notYetSupportedInSpec(Path.of("spec"), specWith(change))).toEqual([]);
  });

  it.each([
    ["kubevirt.io/ignitiondata", '{"ignition":{}}'],
    ["kubevirt.io/placePCIDevicesOnRootComplex", "true"],
    ["hooks.kubevirt.io/hookSidecars", '[{"image": "registry:5000/kubevirt/example-hook-sidecar"}]'],
  ])("refuses the %s annotation when it asks for something", (key, value) => {
    const at = Path.of("spec", "template", "metadata");
    const found = notYetSupportedInMetadata(at, { annotations: { [key]: value } });
    expect(found.map((use) => [use.field.toString(), use.message])).toEqual([
      [`spec.template.metadata.annotations[${key}]`, yet(`the ${key} annotation`)],
    ]);
    expect(
      notYetSupportedInMetadata(at, { annotations: { [key]: value === "true" ? "false" : " " } }),
    ).toEqual([]);
  });

  it("checks a whole VMI, spec and metadata", () => {
    const found = notYetSupportedInVMI({
      metadata: { annotations: { "kubevirt.io/placePCIDevicesOnRootComplex": "true" } },
      spec: specWith((s) => (s.domain.devices.tpm = {})),
    });
    expect(found.map((use) => use.field.toString())).toEqual([
      "spec.domain.devices.tpm",
      "metadata.annotations[kubevirt.io/placePCIDevicesOnRootComplex]",
    ]);
  });

  it("words a subject with a hint as one sentence, the hint last", () => {
    expect(notYetSupportedMessage("the x volume source (supported: a, b)")).toBe(
      "the x volume source is not supported by kubevirt-ts yet (supported: a, b)",
    );
    expect(notYetSupportedMessage("GPU passthrough")).toBe(
      "GPU passthrough is not supported by kubevirt-ts yet",
    );
  });
});

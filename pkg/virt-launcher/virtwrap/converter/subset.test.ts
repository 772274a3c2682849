// The converter refuses exactly what the shared subset (pkg/virt-config/supported-subset.ts, its own
// table of rows) names, before rendering anything, with the same fields and words the webhook uses.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { SUPPORTED_VOLUME_SOURCES } from "../../../virt-config/supported-subset.js";
import { convertVMIToDomain } from "./converter.js";
import { UnsupportedError } from "./errors.js";
import { unsupportedFields } from "./subset.js";
import { defaultedVMI, testContext } from "./testing.js";

type Change = (vmi: VirtualMachineInstance) => void;

function refusal(vmi: VirtualMachineInstance): UnsupportedError {
  try {
    convertVMIToDomain(vmi, testContext(vmi));
  } catch (error) {
    if (error instanceof UnsupportedError) return error;
    throw error;
  }
  throw new Error("the converter accepted the VMI");
}

/** Features issue 4 names; the shared subset's own test covers every row. */
const rows: Array<[string, Change, string, string]> = [
  [
    "EFI",
    (vmi) => (vmi.spec.domain.firmware = { bootloader: { efi: {} } }),
    "spec.domain.firmware.bootloader.efi",
    "spec.domain.firmware.bootloader.efi is not supported by kubevirt-ts yet",
  ],
  [
    "a TPM",
    (vmi) => (vmi.spec.domain.devices.tpm = {}),
    "spec.domain.devices.tpm",
    "spec.domain.devices.tpm is not supported by kubevirt-ts yet",
  ],
  [
    "Hyper-V enlightenments",
    (vmi) => (vmi.spec.domain.features = { hyperv: { relaxed: {} } }),
    "spec.domain.features.hyperv",
    "spec.domain.features.hyperv is not supported by kubevirt-ts yet",
  ],
  [
    "I/O threads",
    (vmi) => (vmi.spec.domain.ioThreadsPolicy = "auto"),
    "spec.domain.ioThreadsPolicy",
    "spec.domain.ioThreadsPolicy is not supported by kubevirt-ts yet",
  ],
  [
    "a SCSI persistent reservation",
    (vmi) => (vmi.spec.domain.devices.disks = [{ name: "d", lun: { bus: "scsi", reservation: true } }]),
    "spec.domain.devices.disks[0].lun.reservation",
    "spec.domain.devices.disks[0].lun.reservation is not supported by kubevirt-ts yet",
  ],
  [
    "a downwardMetrics volume",
    (vmi) => (vmi.spec.volumes = [{ name: "d", downwardMetrics: {} }]),
    "spec.volumes[0].downwardMetrics",
    `the downwardMetrics volume source is not supported by kubevirt-ts yet (supported: ${SUPPORTED_VOLUME_SOURCES.join(", ")})`,
  ],
  [
    "Ignition",
    (vmi) =>
      (vmi.metadata = { ...vmi.metadata, annotations: { "kubevirt.io/ignitiondata": '{"ignition":{}}' } }),
    "metadata.annotations[kubevirt.io/ignitiondata]",
    "the kubevirt.io/ignitiondata annotation is not supported by kubevirt-ts yet",
  ],
];

describe("the converter and the implemented subset", () => {
  it("converts the skeleton's VMI", () => {
    const vmi = defaultedVMI();
    expect(unsupportedFields(vmi)).toEqual([]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).not.toThrow();
  });

  it.each(rows)("refuses %s with the subset's field and message", (_what, change, field, message) => {
    const vmi = defaultedVMI();
    change(vmi);
    const error = refusal(vmi);
    expect(error.causes).toEqual([{ field, message }]);
    expect(error.message).toBe(`${field}: ${message}`);
  });

  it("lists every unsupported field, not just the first", () => {
    const vmi = defaultedVMI();
    for (const [, change] of rows) change(vmi);
    // In the VMI's own member order, so compared as sets.
    expect(
      refusal(vmi)
        .causes.map((cause) => cause.field)
        .sort(),
    ).toEqual(rows.map((row) => row[2]).sort());
  });
});

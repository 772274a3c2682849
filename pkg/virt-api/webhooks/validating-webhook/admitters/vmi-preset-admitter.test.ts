// The preset admitter: upstream's cases (unknown or missing fields, an invalid disk, an empty domain).
import { describe, expect, it } from "vitest";
import { loadUpstreamExamples } from "../../../../defaults/testing.js";
import { toValidationResponse } from "./admission.js";
import { admitVMIPreset } from "./vmi-preset-admitter.js";

const admit = (object: unknown) => toValidationResponse(admitVMIPreset({ operation: "CREATE", object }));

function preset(domain: unknown): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstancePreset",
    metadata: { name: "small" },
    spec: { selector: { matchLabels: { size: "small" } }, domain },
  };
}

describe("VMI preset admitter", () => {
  it("rejects unknown fields and a missing selector", () => {
    const response = admit({ very: "unknown", spec: { extremely: "unknown" } });
    expect(response.allowed).toBe(false);
    expect(response.result?.message).toBe(
      ".very in body is a forbidden property, spec.extremely in body is a forbidden property, spec.selector in body is required",
    );
  });

  it("rejects a disk that is both a disk and a cdrom, at its path", () => {
    const response = admit(preset({ devices: { disks: [{ name: "testdisk", disk: {}, cdrom: {} }] } }));
    expect(response.allowed).toBe(false);
    expect(response.result?.details?.causes.map((cause) => cause.field)).toEqual([
      "spec.domain.devices.disks[0]",
    ]);
  });

  it("rejects invalid firmware", () => {
    const response = admit(preset({ devices: {}, firmware: { bootloader: { bios: {}, efi: {} } } }));
    expect(response.allowed).toBe(false);
    expect(response.result?.details?.causes[0]?.field).toBe("spec.domain.firmware.bootloader");
  });

  it("requires a domain", () => {
    const response = admit(preset(undefined));
    expect(response.result?.message).toBe("missing domain.");
    expect(response.result?.details?.causes[0]?.field).toBe("spec.domain");
  });

  it("accepts an empty domain", () => {
    expect(admit(preset({ devices: {} })).allowed).toBe(true);
  });

  it("admits upstream's example preset as it is", () => {
    const example = loadUpstreamExamples().find((candidate) => candidate.name === "vmi-preset-small.yaml#0");
    expect(example?.object["kind"]).toBe("VirtualMachineInstancePreset");
    expect(admit(example?.object)).toEqual({ allowed: true });
  });
});

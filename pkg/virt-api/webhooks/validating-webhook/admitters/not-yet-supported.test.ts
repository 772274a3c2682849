// The table of features kubevirt-ts does not build yet: every row finds its uses, names the field, and
// says so in one stable sentence; everything the skeleton supports passes untouched.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { Path, specPath } from "./causes.js";
import {
  NOT_YET_SUPPORTED,
  SUPPORTED_VOLUME_SOURCES,
  notYetSupportedMessage,
  validateInstanceSpecSupported,
  validateMetadataSupported,
  validateVMSpecSupported,
} from "./not-yet-supported.js";
import { notSupported, specWith, validSpec } from "./testing.js";
import { VOLUME_SOURCES } from "./volumes.js";

/** One volume of each source; the source objects need not be valid for this table. */
function everyVolumeSource(): VirtualMachineInstanceSpec {
  return specWith((spec) => {
    spec.volumes = VOLUME_SOURCES.map((source) => ({ name: source, [source]: {} }));
  });
}

describe("features kubevirt-ts does not support yet", () => {
  it("leaves the supported subset alone", () => {
    const bridge = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", bridge: {} }]));
    expect(validateInstanceSpecSupported(specPath(), validSpec())).toEqual([]);
    expect(validateInstanceSpecSupported(specPath(), bridge)).toEqual([]);
  });

  it("refuses every volume source but containerDisk, cloudInitNoCloud and emptyDisk, at its field", () => {
    const causes = validateInstanceSpecSupported(specPath(), everyVolumeSource());
    const refusedSources = VOLUME_SOURCES.filter(
      (source) => !SUPPORTED_VOLUME_SOURCES.some((s) => s === source),
    );
    expect(causes).toEqual(
      refusedSources.map((source) =>
        notSupported(
          `spec.volumes[${VOLUME_SOURCES.indexOf(source)}].${source}`,
          `the ${source} volume source is not supported by kubevirt-ts yet (supported: containerDisk, cloudInitNoCloud, emptyDisk)`,
        ),
      ),
    );
    expect(refusedSources).toContain("persistentVolumeClaim");
    expect(refusedSources).toContain("dataVolume");
    expect(refusedSources).toContain("hostDisk");
  });

  it.each([
    ["sriov", { sriov: {} }],
    ["passtBinding", { passtBinding: {} }],
    ["binding", { binding: { name: "plugin" } }],
  ])("refuses the %s binding", (binding, method) => {
    const spec = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", ...method }]));
    expect(validateInstanceSpecSupported(specPath(), spec)).toEqual([
      notSupported(
        `spec.domain.devices.interfaces[0].${binding}`,
        `the ${binding} interface binding is not supported by kubevirt-ts yet (supported: masquerade, bridge)`,
      ),
    ]);
  });

  it("refuses multus and DRA networks, GPUs, host devices and resource claims", () => {
    const spec = specWith((s) => {
      s.networks?.push({ name: "m", multus: { networkName: "n" } }, { name: "d", resourceClaim: {} });
      s.domain.devices.gpus = [];
      s.domain.devices.hostDevices = [];
      s.resourceClaims = [];
    });
    expect(
      validateInstanceSpecSupported(Path.of("spec", "template", "spec"), spec).map((c) => c.field),
    ).toEqual([
      "spec.template.spec.networks[1].multus",
      "spec.template.spec.networks[2].resourceClaim",
      "spec.template.spec.domain.devices.gpus",
      "spec.template.spec.domain.devices.hostDevices",
      "spec.template.spec.resourceClaims",
    ]);
  });

  it("refuses VM references it cannot resolve and hook sidecars", () => {
    const vmSpec = { template: {}, instancetype: { name: "u1" }, preference: { name: "p" } };
    expect(validateVMSpecSupported(specPath(), vmSpec).map((c) => c.field)).toEqual([
      "spec.instancetype",
      "spec.preference",
    ]);
    const metadata = { annotations: { "hooks.kubevirt.io/hookSidecars": "[]" } };
    expect(validateMetadataSupported(Path.of("metadata"), metadata)).toEqual([
      notSupported(
        "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
        "the hooks.kubevirt.io/hookSidecars annotation is not supported by kubevirt-ts yet",
      ),
    ]);
  });

  it("words every row as one sentence ending the same way", () => {
    for (const row of NOT_YET_SUPPORTED) {
      expect(notYetSupportedMessage(row.what)).toMatch(
        /^\S.* is not supported by kubevirt-ts yet( \(supported: .+\))?$/,
      );
    }
    expect(notYetSupportedMessage("GPU passthrough")).toBe(
      "GPU passthrough is not supported by kubevirt-ts yet",
    );
  });
});

import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import { MacvtapDiscontinueMessage, PasstDiscontinueMessage } from "./feature-gates.js";
import { validateFeatureGates } from "./validator.js";

function specWith(...bindings: Array<"passt" | "macvtap" | "masquerade">): VirtualMachineInstanceSpec {
  return {
    domain: {
      devices: { interfaces: bindings.map((binding, i) => ({ name: `net${i}`, [binding]: {} })) },
    },
  };
}

const notSupported = (message: string) => ({ reason: "FieldValueNotSupported", message });

describe("validateFeatureGates", () => {
  it("refuses a listed discontinued gate whose API the VMI uses, without a field", () => {
    expect(validateFeatureGates(["Passt"], specWith("passt"))).toEqual([
      notSupported(PasstDiscontinueMessage),
    ]);
  });

  it("follows the order of the listed gates", () => {
    expect(validateFeatureGates(["Macvtap", "Root", "Passt"], specWith("passt", "macvtap"))).toEqual([
      notSupported(MacvtapDiscontinueMessage),
      notSupported(PasstDiscontinueMessage),
    ]);
  });

  it.each([
    ["the gate is not listed", [], specWith("passt")],
    ["the VMI does not use the API", ["Passt", "Macvtap"], specWith("masquerade")],
    ["the discontinued gate guarded no VMI API", ["ExperimentalVirtiofsSupport"], specWith("passt")],
    ["the gate is GA", ["LiveMigration"], specWith("passt")],
    ["the gate is deprecated", ["MultiArchitecture"], specWith("macvtap")],
    ["the gate is unknown", ["NoSuchGate"], specWith("passt")],
  ])("has nothing to say when %s", (_case, gates, spec) => {
    expect(validateFeatureGates(gates, spec)).toEqual([]);
  });
});

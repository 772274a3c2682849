import { describe, expect, it } from "vitest";
import { FeatureGate, featureGateState, isFeatureGateEnabled } from "./feature-gates.js";

describe("isFeatureGateEnabled", () => {
  it.each([
    ["an Alpha gate is off by default", FeatureGate.Root, undefined, false],
    ["an Alpha gate is on when listed", FeatureGate.Root, { featureGates: ["Root"] }, true],
    ["a Beta gate is on by default", FeatureGate.Snapshot, {}, true],
    ["a Beta gate is off when disabled", FeatureGate.Snapshot, { disabledFeatureGates: ["Snapshot"] }, false],
    [
      "enabling wins over disabling",
      FeatureGate.Snapshot,
      { featureGates: ["Snapshot"], disabledFeatureGates: ["Snapshot"] },
      true,
    ],
    [
      "a GA gate cannot be disabled",
      FeatureGate.LiveMigration,
      { disabledFeatureGates: ["LiveMigration"] },
      true,
    ],
    ["a deprecated gate is off unless listed", FeatureGate.HotplugVolumes, {}, false],
    [
      "a deprecated gate is on when listed",
      FeatureGate.HotplugVolumes,
      { featureGates: ["HotplugVolumes"] },
      true,
    ],
    ["an unknown gate is never on", "NoSuchGate", { featureGates: ["NoSuchGate"] }, false],
  ])("%s", (_rule, gate, developer, expected) => {
    expect(isFeatureGateEnabled(gate, developer)).toBe(expected);
  });

  it("knows upstream's spelling of renamed gates", () => {
    expect(featureGateState("ExperimentalIgnitionSupport")).toBe("Alpha");
    expect(featureGateState("EnableVirtioFsStorageVolumes")).toBe("Alpha");
    expect(featureGateState("ExperimentalVirtiofsSupport")).toBe("Discontinued");
    expect(featureGateState("Ignition")).toBeUndefined();
  });

  it("gives every named gate a state", () => {
    for (const name of Object.values(FeatureGate)) expect(featureGateState(name), name).toBeDefined();
  });
});

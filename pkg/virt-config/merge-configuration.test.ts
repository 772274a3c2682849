import { describe, expect, it } from "vitest";
import type { KubeVirtConfiguration } from "../api/generated/v1.js";
import { overlayConfiguration } from "./merge-configuration.js";

const base: KubeVirtConfiguration = {
  cpuModel: "host-model",
  emulatedMachines: ["q35*"],
  memBalloonStatsPeriod: 10,
  developerConfiguration: { memoryOvercommit: 100, featureGates: ["A"], nodeSelectors: { zone: "a" } },
  network: { defaultNetworkInterface: "bridge", permitBridgeInterfaceOnPodNetwork: true },
};

describe("overlayConfiguration (Go's omitempty marshal, then unmarshal over the defaults)", () => {
  it.each<[string, KubeVirtConfiguration, (c: KubeVirtConfiguration) => unknown, unknown]>([
    ["nothing given keeps the defaults", {}, (c) => c, base],
    ["a string replaces", { cpuModel: "Haswell" }, (c) => c.cpuModel, "Haswell"],
    ["an empty string is dropped", { cpuModel: "" }, (c) => c.cpuModel, "host-model"],
    [
      "a list replaces, never appends",
      { emulatedMachines: ["pc-q35*"] },
      (c) => c.emulatedMachines,
      ["pc-q35*"],
    ],
    ["an empty list is dropped", { emulatedMachines: [] }, (c) => c.emulatedMachines, ["q35*"]],
    [
      "objects merge member by member",
      { network: { defaultNetworkInterface: "masquerade" } },
      (c) => c.network,
      { defaultNetworkInterface: "masquerade", permitBridgeInterfaceOnPodNetwork: true },
    ],
    [
      "a pointer false counts",
      { network: { permitBridgeInterfaceOnPodNetwork: false } },
      (c) => c.network?.permitBridgeInterfaceOnPodNetwork,
      false,
    ],
    ["a pointer zero counts", { memBalloonStatsPeriod: 0 }, (c) => c.memBalloonStatsPeriod, 0],
    [
      "a plain zero is dropped",
      { developerConfiguration: { memoryOvercommit: 0 } },
      (c) => c.developerConfiguration?.memoryOvercommit,
      100,
    ],
    [
      "maps gain entries",
      { developerConfiguration: { nodeSelectors: { rack: "" } } },
      (c) => c.developerConfiguration?.nodeSelectors,
      { zone: "a", rack: "" },
    ],
    ["new sections are added", { vmRolloutStrategy: "Stage" }, (c) => c.vmRolloutStrategy, "Stage"],
  ])("%s", (_rule, override, read, expected) => {
    expect(read(overlayConfiguration(base, override))).toEqual(expected);
  });

  it("changes neither input", () => {
    const override: KubeVirtConfiguration = { developerConfiguration: { featureGates: ["B"] } };
    const result = overlayConfiguration(base, override);
    result.developerConfiguration?.featureGates?.push("C");
    expect(base.developerConfiguration?.featureGates).toEqual(["A"]);
    expect(override.developerConfiguration?.featureGates).toEqual(["B"]);
  });
});

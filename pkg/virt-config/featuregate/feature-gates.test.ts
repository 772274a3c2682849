import { describe, expect, it } from "vitest";
import {
  deprecatedFeatureGateWarning,
  FeatureGate,
  featureGateInfo,
  featureGateState,
  isFeatureGateEnabled,
  MacvtapDiscontinueMessage,
  PasstDiscontinueMessage,
  VirtioFsFeatureGateDiscontinueMessage,
} from "./feature-gates.js";

describe("isFeatureGateEnabled", () => {
  it.each([
    ["an Alpha gate is off by default", FeatureGate.Root, undefined, false],
    ["an Alpha gate is on when listed", FeatureGate.Root, { featureGates: ["Root"] }, true],
    ["a Beta gate is off by default", FeatureGate.Snapshot, {}, false],
    ["a Beta gate is off without a developer configuration", FeatureGate.NodeRestriction, undefined, false],
    ["a Beta gate is on when listed", FeatureGate.Snapshot, { featureGates: ["Snapshot"] }, true],
    ["a Beta gate is off when disabled", FeatureGate.Snapshot, { disabledFeatureGates: ["Snapshot"] }, false],
    [
      "enabling wins over disabling",
      FeatureGate.Snapshot,
      { featureGates: ["Snapshot"], disabledFeatureGates: ["Snapshot"] },
      true,
    ],
    ["a GA gate is on by default", FeatureGate.LiveMigration, undefined, true],
    [
      "a GA gate cannot be disabled",
      FeatureGate.LiveMigration,
      { disabledFeatureGates: ["LiveMigration"] },
      true,
    ],
    ["a deprecated gate is off unless listed", FeatureGate.MultiArchitecture, {}, false],
    [
      "a deprecated gate is on when listed",
      FeatureGate.MultiArchitecture,
      { featureGates: ["MultiArchitecture"] },
      true,
    ],
    ["a discontinued gate reads as on when listed", FeatureGate.Passt, { featureGates: ["Passt"] }, true],
    ["a gate v1.8.4 does not register is off by default", FeatureGate.ObjectGraph, {}, false],
    ["any listed name is on, registered or not", "NoSuchGate", { featureGates: ["NoSuchGate"] }, true],
    ["the listing is case sensitive", FeatureGate.Root, { featureGates: ["root"] }, false],
  ])("%s", (_rule, gate, developer, expected) => {
    expect(isFeatureGateEnabled(gate, developer)).toBe(expected);
  });
});

describe("feature gate states of upstream v1.8.4", () => {
  it.each([
    [FeatureGate.HotplugVolumes, "Alpha"],
    [FeatureGate.DeclarativeHotplugVolumes, "Alpha"],
    [FeatureGate.UtilityVolumes, "Alpha"],
    [FeatureGate.WorkloadEncryptionSEV, "Alpha"],
    [FeatureGate.DecentralizedLiveMigration, "Alpha"],
    [FeatureGate.RebootPolicy, "Alpha"],
    [FeatureGate.Template, "Alpha"],
    [FeatureGate.PersistentReservation, "Alpha"],
    [FeatureGate.ExpandDisks, "Alpha"],
    [FeatureGate.VmiMemoryOverheadReport, "Alpha"],
    [FeatureGate.LibvirtHooksServerAndClient, "Alpha"],
    [FeatureGate.GPUsWithDRA, "Alpha"],
    [FeatureGate.Snapshot, "Beta"],
    [FeatureGate.VMExport, "Beta"],
    [FeatureGate.NodeRestriction, "Beta"],
    [FeatureGate.ImageVolume, "Beta"],
    [FeatureGate.KubevirtSeccompProfile, "Beta"],
    [FeatureGate.PasstBinding, "Beta"],
    [FeatureGate.ExternalNetResourceInjection, "Beta"],
    [FeatureGate.PodSecondaryInterfaceNamingUpgrade, "Beta"],
    [FeatureGate.PanicDevices, "Beta"],
    [FeatureGate.LiveUpdateNADRef, "Beta"],
    [FeatureGate.VideoConfig, "Beta"],
    [FeatureGate.SecureExecution, "Beta"],
    [FeatureGate.MigrationPriorityQueue, "Beta"],
    [FeatureGate.VirtIOFSConfigVolumes, "General Availability"],
    [FeatureGate.VMPersistentState, "General Availability"],
    [FeatureGate.MultiArchitecture, "Deprecated"],
    [FeatureGate.DisableMediatedDevicesHandling, "Deprecated"],
    [FeatureGate.DockerSELinuxMCSWorkaround, "Deprecated"],
    [FeatureGate.PasstIPStackMigration, "Discontinued"],
  ])("%s is %s", (gate, state) => {
    expect(featureGateState(gate)).toBe(state);
  });

  it("knows upstream's spelling of renamed gates", () => {
    expect(featureGateState("ExperimentalIgnitionSupport")).toBe("Alpha");
    expect(featureGateState("EnableVirtioFsStorageVolumes")).toBe("Alpha");
    expect(featureGateState("ExperimentalVirtiofsSupport")).toBe("Discontinued");
    expect(featureGateState("Ignition")).toBeUndefined();
  });

  it("registers as many gates as v1.8.4, leaving the port's later ones unregistered", () => {
    const unregistered = Object.values(FeatureGate).filter((name) => featureGateState(name) === undefined);
    expect(unregistered.sort()).toEqual(
      [
        "CrossArchitectureVirtualization",
        "FirmwareAutoSelection",
        "GraceIOVirtualization",
        "IOMMUFD",
        "MigrationDowntimeTuning",
        "MigrationStallDetection",
        "NetworkDevicesWithDRA",
        "OCIExport",
        "ObjectGraph",
        "Plugins",
        "PortRangesSpec",
        "VGPULiveMigration",
        "VMStatsCollector",
      ].sort(),
    );
    // active.go registers 44 gates and inactive.go 28.
    expect(Object.values(FeatureGate).length - unregistered.length).toBe(72);
  });
});

describe("featureGateInfo", () => {
  it("leaves Alpha and Beta gates without a message", () => {
    expect(featureGateInfo(FeatureGate.Root)).toEqual({ name: "Root", state: "Alpha", message: "" });
    expect(featureGateInfo(FeatureGate.Snapshot)?.message).toBe("");
  });

  it("warns with upstream's WarningPattern about a GA gate", () => {
    expect(featureGateInfo(FeatureGate.LiveMigration)?.message).toBe(
      'feature gate LiveMigration is deprecated (feature state is "General Availability"), therefore it can be ' +
        "safely removed and is redundant. For more info, please look at: " +
        "https://github.com/kubevirt/kubevirt/blob/main/docs/deprecation.md",
    );
    expect(featureGateInfo(FeatureGate.HotplugNetworkInterfaces)?.message).toBe(
      deprecatedFeatureGateWarning("HotplugNICs", "General Availability"),
    );
  });

  it.each([
    [FeatureGate.Passt, PasstDiscontinueMessage],
    [FeatureGate.Macvtap, MacvtapDiscontinueMessage],
    [FeatureGate.VirtIOFS, VirtioFsFeatureGateDiscontinueMessage],
    [
      FeatureGate.PasstIPStackMigration,
      "Seamless migration with passt network binding plugin is no longer supported since KubeVirt v1.8. " +
        "Please use the passt core binding instead.",
    ],
    [FeatureGate.DockerSELinuxMCSWorkaround, "DockerSELinuxMCSWorkaround has been deprecated since v1.4."],
    [FeatureGate.MultiArchitecture, "MultiArchitecture has been deprecated since v1.8.0"],
    [FeatureGate.DisableMediatedDevicesHandling, "DisableMDEVConfiguration has been deprecated since v1.8.0"],
  ])("gives %s its own message", (gate, message) => {
    expect(featureGateInfo(gate)?.message).toBe(message);
  });

  it("knows which discontinued gates guarded a VMI API", () => {
    const withVmiCheck = Object.values(FeatureGate).filter((name) => featureGateInfo(name)?.vmiSpecUsed);
    expect(withVmiCheck).toEqual(["Passt", "Macvtap"]);
  });

  it("has nothing on an unregistered name", () => {
    expect(featureGateInfo("NoSuchGate")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import type { KubeVirt, KubeVirtConfiguration } from "../api/generated/v1.js";
import { ClusterConfig, selectActiveKubeVirt } from "./cluster-config.js";
import { defaultClusterConfiguration } from "./defaults.js";

function kubeVirt(configuration: KubeVirtConfiguration, extra: Partial<KubeVirt> = {}): KubeVirt {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "KubeVirt",
    metadata: { name: "kubevirt", namespace: "kubevirt" },
    spec: { configuration },
    status: { phase: "Deployed", defaultArchitecture: "amd64" },
    ...extra,
  };
}

describe("ClusterConfig defaults (no KubeVirt CR)", () => {
  const config = ClusterConfig.defaults();

  it.each([
    ["machine type for amd64", () => config.getMachineType("amd64"), "q35"],
    ["machine type for an unset architecture", () => config.getMachineType(""), "q35"],
    ["machine type for arm64", () => config.getMachineType("arm64"), "virt"],
    ["machine type for s390x", () => config.getMachineType("s390x"), "s390-ccw-virtio"],
    ["default architecture", () => config.getDefaultArchitecture(), "amd64"],
    ["cpu model", () => config.getCPUModel(), ""],
    ["cpu request", () => config.getCPURequest()?.toString(), "100m"],
    ["default network interface", () => config.getDefaultNetworkInterface(), "bridge"],
    ["bridge on the pod network", () => config.isBridgeInterfaceOnPodNetworkEnabled(), true],
    ["eviction strategy", () => config.getEvictionStrategy(), "None"],
    ["max hotplug ratio", () => config.getMaxHotplugRatio(), 4],
    ["max cpu sockets", () => config.getMaximumCpuSockets(), 0],
    ["max guest memory", () => config.getMaximumGuestMemory(), undefined],
    ["rollout strategy is LiveUpdate", () => config.isVMRolloutStrategyLiveUpdate(), true],
    ["Root feature gate", () => config.rootEnabled(), false],
    ["emulation", () => config.allowEmulation(), false],
    ["memory overcommit", () => config.getMemoryOvercommit(), 100],
    ["cpu allocation ratio", () => config.getCPUAllocationRatio(), 10],
    ["balloon stats period", () => config.getMemBalloonStatsPeriod(), 10],
    ["less PVC space toleration", () => config.getLessPVCSpaceToleration(), 10],
    ["minimum PVC reserve bytes", () => config.getMinimumReservePVCBytes(), 131072],
    ["amd64 emulated machines", () => config.getEmulatedMachines("amd64"), ["q35*", "pc-q35*"]],
    ["amd64 OVMF path", () => config.getOVMFPath("amd64"), "/usr/share/edk2/ovmf"],
    ["QGS socket path", () => config.getQGSSocketPath(), "/var/run/tdx-qgs/qgs.socket"],
    ["guest agent versions", () => config.getSupportedAgentVersions(), ["2.*", "3.*", "4.*", "5.*"]],
  ])("%s", (_knob, read, expected) => {
    expect(read()).toEqual(expected);
  });

  it("hands out copies, so callers cannot change the view", () => {
    config.getConfig().machineType = "pc";
    expect(config.getMachineType("amd64")).toBe("q35");
  });
});

describe("ClusterConfig.fromKubeVirt", () => {
  it.each<[string, KubeVirtConfiguration, (c: ClusterConfig) => unknown, unknown]>([
    [
      "a global machine type wins over the per-arch one",
      { machineType: "pc-q35-rhel9" },
      (c) => c.getMachineType("amd64"),
      "pc-q35-rhel9",
    ],
    [
      "a per-arch machine type",
      { architectureConfiguration: { amd64: { machineType: "pc-q35-8.2" } } },
      (c) => c.getMachineType("amd64"),
      "pc-q35-8.2",
    ],
    [
      "a per-arch override keeps the other per-arch defaults",
      { architectureConfiguration: { amd64: { machineType: "pc-q35-8.2" } } },
      (c) => c.getOVMFPath("amd64"),
      "/usr/share/edk2/ovmf",
    ],
    [
      "masquerade as default interface",
      { network: { defaultNetworkInterface: "masquerade" } },
      (c) => c.getDefaultNetworkInterface(),
      "masquerade",
    ],
    [
      "an empty string leaves the default",
      { network: { defaultNetworkInterface: "" } },
      (c) => c.getDefaultNetworkInterface(),
      "bridge",
    ],
    [
      "a pointer boolean false counts",
      { network: { permitBridgeInterfaceOnPodNetwork: false } },
      (c) => c.isBridgeInterfaceOnPodNetworkEnabled(),
      false,
    ],
    ["a pointer integer 0 counts", { memBalloonStatsPeriod: 0 }, (c) => c.getMemBalloonStatsPeriod(), 0],
    [
      "a plain integer 0 leaves the default",
      { developerConfiguration: { memoryOvercommit: 0 } },
      (c) => c.getMemoryOvercommit(),
      100,
    ],
    [
      "the PVC space toleration",
      { developerConfiguration: { pvcTolerateLessSpaceUpToPercent: 5, minimumReservePVCBytes: 4096 } },
      (c) => [c.getLessPVCSpaceToleration(), c.getMinimumReservePVCBytes()],
      [5, 4096],
    ],
    ["lists replace", { developerConfiguration: { featureGates: ["Root"] } }, (c) => c.rootEnabled(), true],
    ["cpu model", { cpuModel: "Haswell" }, (c) => c.getCPUModel(), "Haswell"],
    ["cpu request, written canonically", { cpuRequest: "1000m" }, (c) => c.getCPURequest()?.toString(), "1"],
    [
      "live update max guest",
      { liveUpdateConfiguration: { maxGuest: "8Gi" } },
      (c) => c.getMaximumGuestMemory()?.toString(),
      "8Gi",
    ],
    [
      "live update settings merge with the hotplug ratio default",
      { liveUpdateConfiguration: { maxCpuSockets: 8 } },
      (c) => [c.getMaximumCpuSockets(), c.getMaxHotplugRatio()],
      [8, 4],
    ],
    [
      "rollout strategy Stage",
      { vmRolloutStrategy: "Stage" },
      (c) => c.isVMRolloutStrategyLiveUpdate(),
      false,
    ],
    ["eviction strategy", { evictionStrategy: "LiveMigrate" }, (c) => c.getEvictionStrategy(), "LiveMigrate"],
    ["emulation", { developerConfiguration: { useEmulation: true } }, (c) => c.allowEmulation(), true],
    [
      "node selectors keep empty label values (a map, not a struct)",
      { developerConfiguration: { nodeSelectors: { "kubevirt.io/schedulable": "" } } },
      (c) => c.getConfig().developerConfiguration?.nodeSelectors,
      { "kubevirt.io/schedulable": "" },
    ],
  ])("%s", (_rule, configuration, read, expected) => {
    const config = ClusterConfig.fromKubeVirt(kubeVirt(configuration));
    expect(config.invalidReason).toBeUndefined();
    expect(read(config)).toEqual(expected);
  });

  it("takes the default architecture from the KubeVirt status", () => {
    const config = ClusterConfig.fromKubeVirt(
      kubeVirt({}, { status: { phase: "Deployed", defaultArchitecture: "arm64" } }),
    );
    expect(config.getDefaultArchitecture()).toBe("arm64");
  });

  it.each<[string, KubeVirtConfiguration, string]>([
    [
      "a pull policy outside the enum",
      { imagePullPolicy: "Sometimes" as "Always" },
      'invalid configuration: imagePullPolicy: Invalid option: expected one of "Always"|"IfNotPresent"|"Never"',
    ],
    [
      "a negative overcommit",
      { developerConfiguration: { memoryOvercommit: -1 } },
      "invalid memoryOvercommit in ConfigMap: -1",
    ],
    [
      "a negative cpu ratio",
      { developerConfiguration: { cpuAllocationRatio: -2 } },
      "invalid cpu allocation ratio in ConfigMap: -2",
    ],
    [
      "a toleration over 100%",
      { developerConfiguration: { pvcTolerateLessSpaceUpToPercent: 101 } },
      "invalid lessPVCSpaceToleration in ConfigMap: 101",
    ],
    [
      "an unknown interface",
      { network: { defaultNetworkInterface: "macvtap" } },
      "invalid default-network-interface in config: macvtap",
    ],
    [
      "a quantity that is not one",
      { cpuRequest: "lots" },
      "invalid configuration: cpuRequest: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    ["a quantity Go cannot parse", { cpuRequest: "1.2.3" }, "invalid quantity in cpuRequest: 1.2.3"],
  ])("refuses %s and keeps the previous configuration", (_case, configuration, reason) => {
    const previous = ClusterConfig.fromKubeVirt(kubeVirt({ cpuModel: "Skylake" }));
    const config = ClusterConfig.fromKubeVirt(kubeVirt({ ...configuration, cpuModel: "Haswell" }), previous);
    expect(config.invalidReason).toBe(reason);
    expect(config.getCPUModel()).toBe("Skylake");
  });

  it("refuses a configuration of the wrong shape", () => {
    const config = ClusterConfig.fromKubeVirt(kubeVirt({ cpuModel: 42 } as unknown as KubeVirtConfiguration));
    expect(config.invalidReason).toMatch(/^invalid configuration/);
    expect(config.getConfig()).toEqual(defaultClusterConfiguration());
  });

  it("exposes the CR's annotations", () => {
    const kv = kubeVirt({}, { metadata: { name: "kubevirt", annotations: { "alpha.kubevirt.io/x": "" } } });
    expect(ClusterConfig.fromKubeVirt(kv).getKubeVirtAnnotations()).toEqual({ "alpha.kubevirt.io/x": "" });
  });
});

describe("selectActiveKubeVirt", () => {
  it("ignores CRs that are not deployed yet or are being deleted", () => {
    const fresh = kubeVirt({}, { status: {} });
    const deleting = kubeVirt({}, { metadata: { name: "old", deletionTimestamp: "2024-01-01T00:00:00Z" } });
    const deployed = kubeVirt({}, { metadata: { name: "live" } });
    expect(selectActiveKubeVirt([fresh, deleting])).toBeUndefined();
    expect(selectActiveKubeVirt([fresh, deployed, deleting])?.metadata?.name).toBe("live");
  });
});

// KubeVirt's feature gates and their maturity as upstream v1.8.4 registers them
// (pkg/virt-config/featuregate/active.go and inactive.go), with its rule for whether one is on
// (virtconfig.ClusterConfig.isFeatureGateEnabled): GA gates are always on; any other gate is on exactly
// when listed in developerConfiguration.featureGates. Beta gates are off by default too, and
// disabledFeatureGates cannot turn off a listed gate (nor a GA one), so it never changes the outcome.
import type { DeveloperConfiguration, VirtualMachineInstanceSpec } from "../../api/generated/v1.js";

export type FeatureGateState = "Alpha" | "Beta" | "General Availability" | "Deprecated" | "Discontinued";

export const FeatureGate = {
  CPUManager: "CPUManager",
  Ignition: "ExperimentalIgnitionSupport",
  HypervStrictCheck: "HypervStrictCheck",
  Sidecar: "Sidecar",
  HostDevices: "HostDevices",
  Snapshot: "Snapshot",
  HostDisk: "HostDisk",
  UtilityVolumes: "UtilityVolumes",
  DownwardMetrics: "DownwardMetrics",
  Root: "Root",
  WorkloadEncryptionSEV: "WorkloadEncryptionSEV",
  WorkloadEncryptionTDX: "WorkloadEncryptionTDX",
  VSOCK: "VSOCK",
  KubevirtSeccompProfile: "KubevirtSeccompProfile",
  AlignCPUs: "AlignCPUs",
  NodeRestriction: "NodeRestriction",
  ImageVolume: "ImageVolume",
  IncrementalBackup: "IncrementalBackup",
  VirtIOFSStorageVolumes: "EnableVirtioFsStorageVolumes",
  GPUsWithDRA: "GPUsWithDRA",
  HostDevicesWithDRA: "HostDevicesWithDRA",
  PCINUMAAwareTopology: "PCINUMAAwareTopology",
  NetworkDevicesWithDRA: "NetworkDevicesWithDRA",
  DecentralizedLiveMigration: "DecentralizedLiveMigration",
  ObjectGraph: "ObjectGraph",
  DeclarativeHotplugVolumes: "DeclarativeHotplugVolumes",
  PasstBinding: "PasstBinding",
  ConfigurableHypervisor: "ConfigurableHypervisor",
  PodSecondaryInterfaceNamingUpgrade: "PodSecondaryInterfaceNamingUpgrade",
  ExternalNetResourceInjection: "ExternalNetResourceInjection",
  RebootPolicy: "RebootPolicy",
  Template: "Template",
  ContainerPathVolumes: "ContainerPathVolumes",
  ReservedOverheadMemlock: "ReservedOverheadMemlock",
  OptOutRoleAggregation: "OptOutRoleAggregation",
  VGPULiveMigration: "VGPULiveMigration",
  VMStatsCollector: "VMStatsCollector",
  OCIExport: "OCIExport",
  Plugins: "Plugins",
  GraceIOVirtualization: "GraceIOVirtualization",
  IOMMUFD: "IOMMUFD",
  FirmwareAutoSelection: "FirmwareAutoSelection",
  MigrationStallDetection: "MigrationStallDetection",
  MigrationDowntimeTuning: "MigrationDowntimeTuning",
  CrossArchitectureVirtualization: "CrossArchitectureVirtualization",
  PortRangesSpec: "PortRangesSpec",
  // Graduated, deprecated or discontinued gates: still recognised.
  LiveMigration: "LiveMigration",
  SRIOVLiveMigration: "SRIOVLiveMigration",
  NonRoot: "NonRoot",
  PSA: "PSA",
  CPUNodeDiscovery: "CPUNodeDiscovery",
  NUMA: "NUMA",
  GPU: "GPU",
  VMLiveUpdateFeatures: "VMLiveUpdateFeatures",
  CommonInstancetypesDeployment: "CommonInstancetypesDeploymentGate",
  HotplugNetworkInterfaces: "HotplugNICs",
  BochsDisplayForEFIGuests: "BochsDisplayForEFIGuests",
  AutoResourceLimits: "AutoResourceLimitsGate",
  DockerSELinuxMCSWorkaround: "DockerSELinuxMCSWorkaround",
  NetworkBindingPlugins: "NetworkBindingPlugins",
  DynamicPodInterfaceNaming: "DynamicPodInterfaceNaming",
  Passt: "Passt",
  Macvtap: "Macvtap",
  PasstIPStackMigration: "PasstIPStackMigration",
  VirtIOFS: "ExperimentalVirtiofsSupport",
  VolumesUpdateStrategy: "VolumesUpdateStrategy",
  VolumeMigration: "VolumeMigration",
  VMExport: "VMExport",
  DisableCustomSELinuxPolicy: "DisableCustomSELinuxPolicy",
  ClusterProfiler: "ClusterProfiler",
  VMPersistentState: "VMPersistentState",
  InstancetypeReferencePolicy: "InstancetypeReferencePolicy",
  MultiArchitecture: "MultiArchitecture",
  VirtIOFSConfigVolumes: "EnableVirtioFsConfigVolumes",
  VideoConfig: "VideoConfig",
  DisableMediatedDevicesHandling: "DisableMDEVConfiguration",
  ExpandDisks: "ExpandDisks",
  PanicDevices: "PanicDevices",
  LiveUpdateNADRef: "LiveUpdateNADRef",
  HotplugVolumes: "HotplugVolumes",
  PersistentReservation: "PersistentReservation",
  SecureExecution: "SecureExecution",
  MigrationPriorityQueue: "MigrationPriorityQueue",
  VmiMemoryOverheadReport: "VmiMemoryOverheadReport",
  LibvirtHooksServerAndClient: "LibvirtHooksServerAndClient",
} as const;

export type FeatureGateName = (typeof FeatureGate)[keyof typeof FeatureGate];

/** Upstream's featuregate.FeatureGate: what RegisterFeatureGate keeps about one gate. */
export interface FeatureGateInfo {
  readonly name: string;
  readonly state: FeatureGateState;
  /** The warning for a listed gate; upstream leaves it empty for Alpha and Beta gates. */
  readonly message: string;
  /** For a discontinued gate: whether a VMI still uses the API it guarded. */
  readonly vmiSpecUsed?: (spec: VirtualMachineInstanceSpec) => boolean;
}

/** Upstream's featuregate.WarningPattern, the default message of a GA, deprecated or discontinued gate. */
export function deprecatedFeatureGateWarning(name: string, state: FeatureGateState): string {
  return (
    `feature gate ${name} is deprecated (feature state is ${JSON.stringify(state)}), therefore it can be ` +
    "safely removed and is redundant. For more info, please look at: " +
    "https://github.com/kubevirt/kubevirt/blob/main/docs/deprecation.md"
  );
}

export const PasstDiscontinueMessage =
  "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.";
export const PasstIPStackMigrationMessage =
  "Seamless migration with passt network binding plugin is no longer supported since KubeVirt v1.8. " +
  "Please use the passt core binding instead.";
export const MacvtapDiscontinueMessage =
  "Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.";
export const VirtioFsFeatureGateDiscontinueMessage =
  "Virtiofs ExperimentalVirtiofsSupport feature gate is discontinued since v1.7. " +
  "Please use EnableVirtioFsConfigVolumes or EnableVirtioFsPVC feature gates instead";

const passtApiUsed = (spec: VirtualMachineInstanceSpec): boolean =>
  (spec.domain.devices.interfaces ?? []).some((iface) => iface.passt !== undefined);
const macvtapApiUsed = (spec: VirtualMachineInstanceSpec): boolean =>
  (spec.domain.devices.interfaces ?? []).some((iface) => iface.macvtap !== undefined);

type Registration = readonly [
  name: FeatureGateName,
  state: FeatureGateState,
  message?: string,
  vmiSpecUsed?: (spec: VirtualMachineInstanceSpec) => boolean,
];

const G = FeatureGate;

// The gates upstream v1.8.4 registers, in its order. The port also names gates v1.8.4 does not know
// (ObjectGraph is declared there but never registered; NetworkDevicesWithDRA, VGPULiveMigration,
// VMStatsCollector, OCIExport, Plugins, GraceIOVirtualization, IOMMUFD, FirmwareAutoSelection,
// MigrationStallDetection, MigrationDowntimeTuning, CrossArchitectureVirtualization and PortRangesSpec
// come from later releases): they have no state and, like any unregistered name, are on only when listed.
const REGISTRATIONS: readonly Registration[] = [
  // active.go
  [G.LibvirtHooksServerAndClient, "Alpha"],
  [G.ImageVolume, "Beta"],
  [G.ExpandDisks, "Alpha"],
  [G.CPUManager, "Alpha"],
  [G.Ignition, "Alpha"],
  [G.HypervStrictCheck, "Alpha"],
  [G.Sidecar, "Alpha"],
  [G.HostDevices, "Alpha"],
  [G.Snapshot, "Beta"],
  [G.VMExport, "Beta"],
  [G.HotplugVolumes, "Alpha"],
  [G.HostDisk, "Alpha"],
  [G.DownwardMetrics, "Alpha"],
  [G.Root, "Alpha"],
  [G.WorkloadEncryptionSEV, "Alpha"],
  [G.WorkloadEncryptionTDX, "Alpha"],
  [G.VSOCK, "Alpha"],
  [G.KubevirtSeccompProfile, "Beta"],
  [G.PersistentReservation, "Alpha"],
  [G.AlignCPUs, "Alpha"],
  [G.NodeRestriction, "Beta"],
  [G.VirtIOFSStorageVolumes, "Alpha"],
  [G.GPUsWithDRA, "Alpha"],
  [G.HostDevicesWithDRA, "Alpha"],
  [G.PCINUMAAwareTopology, "Alpha"],
  [G.DecentralizedLiveMigration, "Alpha"],
  [G.DeclarativeHotplugVolumes, "Alpha"],
  [G.SecureExecution, "Beta"],
  [G.VideoConfig, "Beta"],
  [G.PanicDevices, "Beta"],
  [G.UtilityVolumes, "Alpha"],
  [G.ConfigurableHypervisor, "Alpha"],
  [G.PasstBinding, "Beta"],
  [G.IncrementalBackup, "Alpha"],
  [G.MigrationPriorityQueue, "Beta"],
  [G.PodSecondaryInterfaceNamingUpgrade, "Beta"],
  [G.ExternalNetResourceInjection, "Beta"],
  [G.RebootPolicy, "Alpha"],
  [G.Template, "Alpha"],
  [G.VmiMemoryOverheadReport, "Alpha"],
  [G.ContainerPathVolumes, "Alpha"],
  [G.OptOutRoleAggregation, "Alpha"],
  [G.LiveUpdateNADRef, "Beta"],
  [G.ReservedOverheadMemlock, "Alpha"],
  // inactive.go
  [G.LiveMigration, "General Availability"],
  [G.SRIOVLiveMigration, "General Availability"],
  [G.NonRoot, "General Availability"],
  [G.PSA, "General Availability"],
  [G.CPUNodeDiscovery, "General Availability"],
  [G.NUMA, "General Availability"],
  [G.CommonInstancetypesDeployment, "General Availability"],
  [G.GPU, "General Availability"],
  [G.HotplugNetworkInterfaces, "General Availability"],
  [G.BochsDisplayForEFIGuests, "General Availability"],
  [G.VMLiveUpdateFeatures, "General Availability"],
  [G.NetworkBindingPlugins, "General Availability"],
  [G.DynamicPodInterfaceNaming, "General Availability"],
  [G.VolumesUpdateStrategy, "General Availability"],
  [G.VolumeMigration, "General Availability"],
  [G.DisableCustomSELinuxPolicy, "General Availability"],
  [G.AutoResourceLimits, "General Availability"],
  [G.ClusterProfiler, "General Availability"],
  [G.VMPersistentState, "General Availability"],
  [G.DockerSELinuxMCSWorkaround, "Deprecated", "DockerSELinuxMCSWorkaround has been deprecated since v1.4."],
  [G.VirtIOFS, "Discontinued", VirtioFsFeatureGateDiscontinueMessage],
  [G.Passt, "Discontinued", PasstDiscontinueMessage, passtApiUsed],
  [G.Macvtap, "Discontinued", MacvtapDiscontinueMessage, macvtapApiUsed],
  [G.PasstIPStackMigration, "Discontinued", PasstIPStackMigrationMessage],
  [G.InstancetypeReferencePolicy, "General Availability"],
  [G.MultiArchitecture, "Deprecated", "MultiArchitecture has been deprecated since v1.8.0"],
  [G.VirtIOFSConfigVolumes, "General Availability"],
  [
    G.DisableMediatedDevicesHandling,
    "Deprecated",
    "DisableMDEVConfiguration has been deprecated since v1.8.0",
  ],
];

/** Upstream's RegisterFeatureGate: a gate past Beta without its own message gets the deprecation warning. */
function register([name, state, message, vmiSpecUsed]: Registration): FeatureGateInfo {
  const isActive = state === "Alpha" || state === "Beta";
  return {
    name,
    state,
    message: message ?? (isActive ? "" : deprecatedFeatureGateWarning(name, state)),
    ...(vmiSpecUsed ? { vmiSpecUsed } : {}),
  };
}

const GATES: ReadonlyMap<string, FeatureGateInfo> = new Map(
  REGISTRATIONS.map((registration) => [registration[0], register(registration)]),
);

/** Upstream's FeatureGateInfo: the registered gate of that name, if any. */
export function featureGateInfo(name: string): FeatureGateInfo | undefined {
  return GATES.get(name);
}

export function featureGateState(name: string): FeatureGateState | undefined {
  return GATES.get(name)?.state;
}

export function isFeatureGateEnabled(name: string, developer: DeveloperConfiguration | undefined): boolean {
  if (GATES.get(name)?.state === "General Availability") return true;
  return developer?.featureGates?.includes(name) ?? false;
}

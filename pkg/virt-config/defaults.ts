// The cluster-wide configuration a KubeVirt installation runs with when its KubeVirt CR says nothing:
// upstream's virt-config constants and defaultClusterConfig, for the amd64 control plane we run on.
import type { KubeVirtConfiguration, ReloadableComponentConfiguration } from "../api/generated/v1.js";

export const DefaultAMD64MachineType = "q35";
export const DefaultAARCH64MachineType = "virt";
export const DefaultS390XMachineType = "s390-ccw-virtio";
export const DefaultCPURequest = "100m";
export const DefaultMemoryOvercommit = 100;
export const DefaultAMD64EmulatedMachines = ["q35*", "pc-q35*"];
export const DefaultAARCH64EmulatedMachines = ["virt*"];
export const DefaultS390XEmulatedMachines = ["s390-ccw-virtio*"];
export const DefaultLessPVCSpaceToleration = 10;
export const DefaultMinimumReservePVCBytes = 131072;
export const DefaultNetworkInterface = "bridge";
export const DefaultImagePullPolicy = "IfNotPresent";
export const DefaultPermitSlirpInterface = false;
export const DefaultPermitBridgeInterfaceOnPodNetwork = true;
export const SmbiosConfigDefaultFamily = "KubeVirt";
export const SmbiosConfigDefaultManufacturer = "KubeVirt";
export const SmbiosConfigDefaultProduct = "None";
export const SupportedGuestAgentVersions = ["2.*", "3.*", "4.*", "5.*"];
export const DefaultARCHOVMFPath = "/usr/share/edk2/ovmf";
export const DefaultAARCH64OVMFPath = "/usr/share/AAVMF";
export const DefaultS390xOVMFPath = "";
export const DefaultMemBalloonStatsPeriod = 10;
export const DefaultCPUAllocationRatio = 10;
/** 2000 MiB, written as Go writes resource.NewQuantity(2000*1024*1024, BinarySI). */
export const DefaultDiskVerificationMemoryLimit = "2000Mi";
export const DefaultLogVerbosity = 2;
export const DefaultTDXAttestationEnforced = false;
export const DefaultQGSSocketPath = "/var/run/tdx-qgs/qgs.socket";
export const DefaultMaxHotplugRatio = 4;
export const DefaultVMRolloutStrategy = "LiveUpdate";
export const DefaultEvictionStrategy = "None";
export const NodeDrainTaintDefaultKey = "kubevirt.io/drain";
export const KvmHypervisorName = "kvm";

export const MigrationDefaults = {
  parallelOutboundMigrationsPerNode: 2,
  parallelMigrationsPerCluster: 5,
  /** "0Mi" as upstream writes it back after parsing. */
  bandwidthPerMigration: "0",
  allowAutoConverge: false,
  allowPostCopy: false,
  progressTimeout: 150,
  completionTimeoutPerGiB: 150,
  maxDowntimeMs: 900,
  utilityVolumesTimeout: 150,
  unsafeMigrationOverride: false,
} as const;

export const RestClientDefaults = {
  virtHandler: { qps: 50, burst: 100 },
  virtController: { qps: 200, burst: 400 },
  virtOperator: { qps: 200, burst: 400 },
  virtAPI: { qps: 200, burst: 400 },
  webhookClient: { qps: 200, burst: 400 },
} as const;

/** The only CPU architecture this port runs its control plane on. */
export const ClusterCPUArchitecture = "amd64";

function restClient(limits: { qps: number; burst: number }): ReloadableComponentConfiguration {
  return {
    restClient: { rateLimiter: { tokenBucketRateLimiter: { qps: limits.qps, burst: limits.burst } } },
  };
}

/** A fresh copy of upstream's defaultClusterConfig(cpuArch); callers may change it. */
export function defaultClusterConfiguration(cpuArch: string = ClusterCPUArchitecture): KubeVirtConfiguration {
  return {
    imagePullPolicy: DefaultImagePullPolicy,
    developerConfiguration: {
      memoryOvercommit: DefaultMemoryOvercommit,
      pvcTolerateLessSpaceUpToPercent: DefaultLessPVCSpaceToleration,
      minimumReservePVCBytes: DefaultMinimumReservePVCBytes,
      nodeSelectors: {},
      cpuAllocationRatio: DefaultCPUAllocationRatio,
      diskVerification: { memoryLimit: DefaultDiskVerificationMemoryLimit },
      logVerbosity: {
        virtAPI: DefaultLogVerbosity,
        virtOperator: DefaultLogVerbosity,
        virtController: DefaultLogVerbosity,
        virtHandler: DefaultLogVerbosity,
        virtLauncher: DefaultLogVerbosity,
      },
    },
    evictionStrategy: DefaultEvictionStrategy,
    migrations: { ...MigrationDefaults, nodeDrainTaintKey: NodeDrainTaintDefaultKey },
    cpuRequest: DefaultCPURequest,
    network: {
      defaultNetworkInterface: DefaultNetworkInterface,
      permitSlirpInterface: DefaultPermitSlirpInterface,
      permitBridgeInterfaceOnPodNetwork: DefaultPermitBridgeInterfaceOnPodNetwork,
    },
    smbios: {
      family: SmbiosConfigDefaultFamily,
      manufacturer: SmbiosConfigDefaultManufacturer,
      product: SmbiosConfigDefaultProduct,
    },
    selinuxLauncherType: "",
    supportedGuestAgentVersions: [...SupportedGuestAgentVersions],
    memBalloonStatsPeriod: DefaultMemBalloonStatsPeriod,
    apiConfiguration: restClient(RestClientDefaults.virtAPI),
    controllerConfiguration: restClient(RestClientDefaults.virtController),
    handlerConfiguration: restClient(RestClientDefaults.virtHandler),
    webhookConfiguration: restClient(RestClientDefaults.webhookClient),
    architectureConfiguration: {
      amd64: {
        ovmfPath: DefaultARCHOVMFPath,
        emulatedMachines: [...DefaultAMD64EmulatedMachines],
        machineType: DefaultAMD64MachineType,
      },
      arm64: {
        ovmfPath: DefaultAARCH64OVMFPath,
        emulatedMachines: [...DefaultAARCH64EmulatedMachines],
        machineType: DefaultAARCH64MachineType,
      },
      s390x: {
        ovmfPath: DefaultS390xOVMFPath,
        emulatedMachines: [...DefaultS390XEmulatedMachines],
        machineType: DefaultS390XMachineType,
      },
      defaultArchitecture: cpuArch,
    },
    liveUpdateConfiguration: { maxHotplugRatio: DefaultMaxHotplugRatio },
    vmRolloutStrategy: DefaultVMRolloutStrategy,
    hypervisors: [{ name: KvmHypervisorName }],
  };
}

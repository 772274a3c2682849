// Names virt-controller shares with the other components: labels, annotations, finalizers and the
// directories of the virt-launcher Pod, spelled as upstream's API (core/v1 types.go) and pkg/util spell them.

// Labels
export const AppLabel = "kubevirt.io";
export const CreatedByLabel = "kubevirt.io/created-by";
export const NodeNameLabel = "kubevirt.io/nodeName";
export const OutdatedLauncherImageLabel = "kubevirt.io/outdatedLauncherImage";
export const DeprecatedVirtualMachineNameLabel = "vm.kubevirt.io/name";
export const VirtualMachineInstanceIDLabel = "vmi.kubevirt.io/id";
export const NodeSchedulableLabel = "kubevirt.io/schedulable";
export const SupportedMachineTypeLabel = "machine-type.node.kubevirt.io/";
export const CPUModelLabel = "cpu-model.node.kubevirt.io/";
export const CPUFeatureLabel = "cpu-feature.node.kubevirt.io/";
export const NodeHostModelIsObsoleteLabel = "node-labeller.kubevirt.io/obsolete-host-model";
export const HostModelCPULabel = "host-model-cpu.node.kubevirt.io/";
export const HostModelRequiredFeaturesLabel = "host-model-required-features.node.kubevirt.io/";
export const CPUModelVendorLabel = "cpu-vendor.node.kubevirt.io/";
export const SupportedHostModelMigrationCPU = "cpu-model-migration.node.kubevirt.io/";
/** virt-handler's beat on its Node, which virt-controller's node controller reads. */
export const VirtHandlerHeartbeat = "kubevirt.io/heartbeat";
export const ArchLabel = "kubernetes.io/arch";
export const VirtualMachinePoolRevisionName = "kubevirt.io/vm-pool-revision-name";
/** A migration's VMI, set by virt-api's migration mutator and selected on by every migration reader. */
export const MigrationSelectorLabel = "kubevirt.io/vmi-name";

// Annotations
export const DomainAnnotation = "kubevirt.io/domain";
export const EvictionSourceAnnotation = "kubevirt.io/eviction-source";
export const CreateMigrationTargetAnnotation = "kubevirt.io/create-migration-target";
export const EvacuationMigrationAnnotation = "kubevirt.io/evacuationMigration";
export const MigrationJobLabel = "kubevirt.io/migrationJobUID";
export const MigrationTargetNodeNameLabel = "kubevirt.io/migrationTargetNodeName";
/** vmi.status.migrationTransport when the migration streams go over unix sockets (upstream MigrationTransportUnix). */
export const MigrationTransportUnix = "Unix";
export const DefaultContainerAnnotation = "kubectl.kubernetes.io/default-container";
export const MigrationTransportUnixAnnotation = "kubevirt.io/migrationTransportUnix";
export const EvictOnlyAnnotation = "descheduler.alpha.kubernetes.io/request-evict-only";
export const VirtualMachineGenerationAnnotation = "kubevirt.io/vm-generation";
export const LatestObservedAPIVersionAnnotation = "kubevirt.io/latest-observed-api-version";
export const StorageObservedAPIVersionAnnotation = "kubevirt.io/storage-observed-api-version";
export const DeprecatedNonRootVMIAnnotation = "kubevirt.io/nonroot";
export const KeepLauncherAfterFailureAnnotation = "kubevirt.io/keep-launcher-alive-after-failure";
export const CustomLibvirtLogFiltersAnnotation = "kubevirt.io/libvirt-log-filters";
export const FuncTestLauncherFailFastAnnotation = "kubevirt.io/func-test-virt-launcher-fail-fast";
export const EphemeralProvisioningObjectAnnotation = "kubevirt.io/ephemeral-provisioning";
export const ApiLatestVersion = "v1";
export const ApiStorageVersion = "v1";

// Finalizers
export const VirtualMachineInstanceFinalizer = "kubevirt.io/foregroundDeleteVirtualMachine";
export const DeprecatedVirtualMachineInstanceFinalizer = "foregroundDeleteVirtualMachine";
export const VirtualMachineControllerFinalizer = "kubevirt.io/virtualMachineControllerFinalize";
export const OrphanDependentsFinalizer = "orphan";
export const VirtualMachinePoolControllerFinalizer = "pool.kubevirt.io/finalizer";
export const VirtualMachineInstanceMigrationFinalizer = "kubevirt.io/migrationJobFinalize";

// Pod conditions and containers
export const VirtualMachineUnpausedCondition = "kubevirt.io/virtual-machine-unpaused";
export const ComputeContainerName = "compute";

// Directories inside the virt-launcher Pod
export const VirtShareDir = "/var/run/kubevirt";
export const VirtPrivateDir = "/var/run/kubevirt-private";
export const DefaultEphemeralDiskDir = `${VirtShareDir}-ephemeral-disks`;
export const DefaultContainerDiskDir = `${VirtShareDir}/container-disks`;
export const DefaultHotplugDiskDir = `${VirtShareDir}/hotplug-disks`;
export const SecretSourceDir = `${VirtPrivateDir}/secret`;

// Users the launcher runs as
export const NonRootUID = 107;
export const RootUser = 0;

/** The grace period a VMI gets when it does not set one (core/v1 DefaultGracePeriodSeconds). */
export const DefaultGracePeriodSeconds = 30;

// The API identity of the objects virt-controller owns
export const KubeVirtAPIVersion = "kubevirt.io/v1";

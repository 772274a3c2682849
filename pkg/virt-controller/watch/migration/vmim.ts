// What the migration controller knows of a VirtualMachineInstanceMigration and of the VMI it moves:
// upstream's labels, annotations, phases, condition types and event reasons (api core/v1 types.go and
// pkg/controller/controller.go), and the predicates types.go defines on both objects.
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
  VirtualMachineInstanceMigrationStatus,
} from "../../../api/generated/v1.js";
import type { MigrationPolicy } from "../../../api/generated/v1alpha1.js";
import type { GroupVersionResource } from "../../../controller/gvr.js";
import type { Stored } from "../../../controller/resources.js";

export type StoredVMIM = Stored<VirtualMachineInstanceMigration>;
export type StoredMigrationPolicy = Stored<MigrationPolicy>;
export type MigrationStatus = VirtualMachineInstanceMigrationStatus;

export const virtualMachineInstanceMigrationsGVR: GroupVersionResource = {
  group: "kubevirt.io",
  version: "v1",
  resource: "virtualmachineinstancemigrations",
  namespaced: true,
  kind: "VirtualMachineInstanceMigration",
};

export const migrationPoliciesGVR: GroupVersionResource = {
  group: "migrations.kubevirt.io",
  version: "v1alpha1",
  resource: "migrationpolicies",
  namespaced: false,
  kind: "MigrationPolicy",
};

// Labels and annotations (the ones other components read live in pkg/util/constants.ts).
export {
  EvacuationMigrationAnnotation,
  MigrationJobLabel,
  MigrationTargetNodeNameLabel,
} from "../../../util/constants.js";
export const MigrationJobNameAnnotation = "kubevirt.io/migrationJobName";
export const MigrationTargetReadyTimestampAnnotation = "kubevirt.io/migration-target-ready-timestamp";
export const MigrationUnschedulablePodTimeoutSecondsAnnotation =
  "kubevirt.io/migrationUnschedulablePodTimeoutSeconds";
export const MigrationPendingPodTimeoutSecondsAnnotation = "kubevirt.io/migrationPendingPodTimeoutSeconds";
export const WorkloadUpdateMigrationAnnotation = "kubevirt.io/workloadUpdateMigration";
export const FuncTestForceIgnoreMigrationBackoffAnnotation = "kubevirt.io/func-test-ignore-migration-backoff";
export const FuncTestMigrationTargetImageOverrideAnnotation =
  "kubevirt.io/func-test-migration-target-image-override";
export const VirtualMachinePodCPULimitsLabel = "kubevirt.io/vmi-pod-cpu-resource-limits";
export const VirtualMachinePodMemoryRequestsLabel = "kubevirt.io/vmi-pod-memory-resource-requests";

export const MigrationPhase = {
  Unset: "",
  Pending: "Pending",
  Scheduling: "Scheduling",
  Scheduled: "Scheduled",
  PreparingTarget: "PreparingTarget",
  TargetReady: "TargetReady",
  Running: "Running",
  Succeeded: "Succeeded",
  Failed: "Failed",
  WaitingForSync: "WaitingForSync",
  Synchronizing: "Synchronizing",
} as const;

export const MigrationCondition = {
  AbortRequested: "migrationAbortRequested",
  RejectedByResourceQuota: "migrationRejectedByResourceQuota",
} as const;

/** VMI conditions that hold a finished migration back from Succeeded (hotplug still settling). */
export const VMIConditionVCPUChange = "HotVCPUChange";
export const VMIConditionMemoryChange = "HotMemoryChange";
export const VMIConditionMigrationRequired = "MigrationRequired";

export const MigrationReason = {
  SuccessfulCreatePod: "SuccessfulCreate",
  FailedCreatePod: "FailedCreate",
  SuccessfulDeletePod: "SuccessfulDelete",
  FailedDeletePod: "FailedDelete",
  SuccessfulHandOverPod: "SuccessfulHandOver",
  FailedHandOverPod: "FailedHandOver",
  SuccessfulMigration: "SuccessfulMigration",
  FailedMigration: "FailedMigration",
  SuccessfulAbortMigration: "SuccessfulAbortMigration",
  FailedAbortMigration: "FailedAbortMigration",
  TargetPodUnschedulable: "migrationTargetPodUnschedulable",
  NoSuitableNodesForHostModelMigration: "NoSuitableNodesForHostModelMigration",
  MigrationBackoff: "MigrationBackoff",
} as const;

const phaseOf = (migration: StoredVMIM): string => migration.status?.phase ?? "";

export const isMigrationFinal = (migration: StoredVMIM): boolean =>
  phaseOf(migration) === MigrationPhase.Failed || phaseOf(migration) === MigrationPhase.Succeeded;

/** Decentralized (cross-cluster) migrations name only one side: sendTo or receive. */
export const isDecentralized = (migration: StoredVMIM): boolean =>
  (migration.spec.sendTo !== undefined) !== (migration.spec.receive !== undefined);

const notYetScheduling = new Set<string>([
  MigrationPhase.Unset,
  MigrationPhase.Pending,
  MigrationPhase.WaitingForSync,
  MigrationPhase.Synchronizing,
]);

/** Upstream's IsRunning: past Pending and not final (counts against the parallel limits). */
export function isMigrationRunning(migration: StoredVMIM): boolean {
  const phase = phaseOf(migration);
  if (isMigrationFinal(migration) || notYetScheduling.has(phase)) return false;
  return !(phase === MigrationPhase.Scheduling && isDecentralized(migration) && !!migration.spec.sendTo);
}

/** The phase says the target pod should already exist. */
export const targetIsCreated = (migration: StoredVMIM): boolean => !notYetScheduling.has(phaseOf(migration));

/** The phase says virt-handler was told about the migration (it owns the rest). */
export function targetIsHandedOff(migration: StoredVMIM): boolean {
  const phase = phaseOf(migration);
  return (
    !notYetScheduling.has(phase) && phase !== MigrationPhase.Scheduling && phase !== MigrationPhase.Scheduled
  );
}

/** For a migration inside one cluster: the VMI carries a migration state at all. */
export const isMigrationSynchronized = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.migrationState !== undefined && vmi.status.migrationState !== null;

/** The VMI's migration state belongs to this migration. */
export const stateBelongsTo = (vmi: VirtualMachineInstance, migration: StoredVMIM): boolean =>
  isMigrationSynchronized(vmi) && vmi.status?.migrationState?.migrationUid === migration.metadata?.uid;

/** Upstream's IsTargetPreparing: the handoff named this migration's target node. */
export const isTargetPreparing = (vmi: VirtualMachineInstance, migration: StoredVMIM): boolean =>
  stateBelongsTo(vmi, migration) && (vmi.status?.migrationState?.targetNode ?? "") !== "";

/** The migration's key in the controller's queue: namespace/name. */
export const vmiKeyOf = (migration: StoredVMIM): string =>
  `${migration.metadata?.namespace ?? ""}/${migration.spec.vmiName ?? ""}`;

/** Index of migrations by the namespace/name of their VMI (upstream's byVMIName). */
export const ByVMINameIndex = "byVMIName";
export const byVMIName = (migration: StoredVMIM): string[] => [vmiKeyOf(migration)];

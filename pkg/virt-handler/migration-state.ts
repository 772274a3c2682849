// Predicates and options shared by virt-handler's VMI, migration source and migration target controllers
// (upstream pkg/virt-handler/controller.go, migration-source.go, migration-target.go). Pure, so the
// controllers' decisions are tested as tables.
import type {
  MigrationConfiguration,
  VirtualMachineInstance,
  VirtualMachineInstanceMigrationState,
} from "../api/generated/v1.js";
import { Quantity } from "../defaults/quantity.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { StateChangeReason } from "../virt-launcher/virtwrap/api/domain-status.js";
import type { MigrationOptions } from "../handler-launcher-com/cmd/v1/migration-options.js";
import { MigrationDefaults } from "../virt-config/defaults.js";

/** Upstream's event messages (pkg/virt-handler/controller.go). */
export const VMIMigrating = "VirtualMachineInstance is migrating.";
export const VMIAbortingMigration = "VirtualMachineInstance is aborting migration.";
export const VMIMigrationTargetPrepared = "VirtualMachineInstance Migration Target Prepared.";
/** QEMU's multifd channels when the VMI's CPU is not limited and post-copy is off. */
export const ParallelMultifdMigrationThreads = 8;

const STOPPED = ["Shutoff", "Crashed", ""];

/** A domain that exists and is neither shut off nor crashed. */
export function domainAlive(domain: DomainObject | undefined): domain is DomainObject {
  return domain !== undefined && !STOPPED.includes(domain.status.status);
}

/** The target's domain runs (or is paused by the user): the guest lives there now. */
export function domainIsActiveOnTarget(domain: DomainObject | undefined): boolean {
  if (!domain) return false;
  const { status, reason } = domain.status;
  return status === "Running" || (status === "Paused" && reason === StateChangeReason.User);
}

/** The source's domain was shut off because its guest moved away. */
export function domainMigrated(domain: DomainObject | undefined): boolean {
  return domain?.status.status === "Shutoff" && domain.status.reason === StateChangeReason.Migrated;
}

export function domainPausedFailedPostCopy(domain: DomainObject | undefined): boolean {
  return (
    domain?.status.status === "Paused" && domain.status.reason === StateChangeReason.PausedPostcopyFailed
  );
}

const MIGRATION_PAUSE_REASONS: readonly string[] = [
  StateChangeReason.PausedMigration,
  StateChangeReason.PausedStartingUp,
  StateChangeReason.PausedPostcopy,
];

/** Upstream isMigrationInProgress: started and not ended, by the VMI's account or the domain's. */
export function isMigrationInProgress(
  vmi: VirtualMachineInstance | undefined,
  domain: DomainObject | undefined,
): boolean {
  const state = vmi?.status?.migrationState;
  if (state?.startTimestamp && !state.endTimestamp) return true;
  if (!domain) return false;
  const metadata = domain.spec.metadata?.kubeVirt.migration;
  if (metadata?.startTimestamp && !metadata.endTimestamp) return true;
  return domain.status.status === "Paused" && MIGRATION_PAUSE_REASONS.includes(domain.status.reason);
}

/** Upstream isMigrationDone: no migration, or one that ended with an outcome. */
export function isMigrationDone(state: VirtualMachineInstanceMigrationState | undefined): boolean {
  return state === undefined || (state.endTimestamp !== undefined && (!!state.completed || !!state.failed));
}

/** Ended by the launcher's account, but the target has not concluded it yet. */
export function migrationNeedsFinalization(state: VirtualMachineInstanceMigrationState | undefined): boolean {
  return (
    state !== undefined &&
    state.startTimestamp !== undefined &&
    state.endTimestamp !== undefined &&
    !state.completed &&
    !state.failed
  );
}

/** The key both handlers file a migration's proxies under (upstream migrationProxyKey, no decentralized case). */
export function migrationProxyKey(vmi: VirtualMachineInstance): string {
  return vmi.metadata?.uid ?? "";
}

export function isBlockMigration(vmi: VirtualMachineInstance): boolean {
  return vmi.status?.migrationMethod === "BlockMigration";
}

type MigrationSettings = Pick<
  MigrationConfiguration,
  | "bandwidthPerMigration"
  | "progressTimeout"
  | "completionTimeoutPerGiB"
  | "unsafeMigrationOverride"
  | "allowAutoConverge"
  | "allowPostCopy"
  | "allowWorkloadDisruption"
>;

/**
 * The options the source launcher migrates with (upstream migrateVMI): the migration's own configuration
 * when the controller resolved one, else the cluster's, each unset field at upstream's default; the
 * workload may be disrupted when post-copy is allowed unless said otherwise.
 */
export function migrationOptions(
  vmi: VirtualMachineInstance,
  cluster: MigrationConfiguration | undefined,
): MigrationOptions {
  const chosen: MigrationSettings = vmi.status?.migrationState?.migrationConfiguration ?? cluster ?? {};
  const allowPostCopy = chosen.allowPostCopy ?? MigrationDefaults.allowPostCopy;
  const options: MigrationOptions = {
    Bandwidth: String(chosen.bandwidthPerMigration ?? MigrationDefaults.bandwidthPerMigration),
    ProgressTimeout: chosen.progressTimeout ?? MigrationDefaults.progressTimeout,
    CompletionTimeoutPerGiB: chosen.completionTimeoutPerGiB ?? MigrationDefaults.completionTimeoutPerGiB,
    UnsafeMigration: chosen.unsafeMigrationOverride ?? MigrationDefaults.unsafeMigrationOverride,
    AllowAutoConverge: chosen.allowAutoConverge ?? MigrationDefaults.allowAutoConverge,
    AllowPostCopy: allowPostCopy,
    AllowWorkloadDisruption: chosen.allowWorkloadDisruption ?? allowPostCopy,
  };
  return configureParallelMigrationThreads(options, vmi);
}

/** Upstream configureParallelMigrationThreads: multifd only for an unlimited CPU and without post-copy. */
export function configureParallelMigrationThreads(
  options: MigrationOptions,
  vmi: VirtualMachineInstance,
): MigrationOptions {
  const cpuLimit = vmi.spec.domain.resources?.limits?.["cpu"];
  if (cpuLimit !== undefined && !Quantity.parse(String(cpuLimit)).isZero()) return options;
  if (options.AllowPostCopy) return options;
  return { ...options, ParallelMigrationThreads: ParallelMultifdMigrationThreads };
}

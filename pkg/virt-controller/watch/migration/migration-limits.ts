// Who may start now (upstream's handleTargetPodCreation, findRunningMigrations, outboundMigrationsOnNode
// and canMigrateVMI): a migration is "running" once past Pending, or while Pending with its target pod
// already made; new target pods wait while the cluster has parallelMigrationsPerCluster running, or the
// VMI's node has parallelOutboundMigrationsPerNode going out.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { isMigrationFinal, isMigrationRunning, type StoredVMIM } from "./vmim.js";

/** Re-checks of a migration held back by the limits, as upstream without the priority queue. */
export const LimitRequeueDelayMs = 5_000;
/** Re-checks while target pod creations are in flight, or the VMI has more than one pod. */
export const BusyRequeueDelayMs = 1_000;

export interface LimitLookups {
  vmiOf: (migration: StoredVMIM) => VirtualMachineInstance | undefined;
  /** Whether the migration's target pod exists (in the cache). */
  hasTargetPod: (migration: StoredVMIM, vmi: VirtualMachineInstance) => boolean;
}

/** Unfinished migrations that count against the limits. */
export function findRunningMigrations(
  migrations: readonly StoredVMIM[],
  lookups: LimitLookups,
): StoredVMIM[] {
  return migrations.filter((migration) => {
    if (isMigrationFinal(migration)) return false;
    if (isMigrationRunning(migration)) return true;
    const vmi = lookups.vmiOf(migration);
    return vmi !== undefined && lookups.hasTargetPod(migration, vmi);
  });
}

/** Running migrations whose VMI is on `node`, or leaving it. */
export function outboundMigrationsOnNode(
  node: string,
  running: readonly StoredVMIM[],
  vmiOf: LimitLookups["vmiOf"],
): number {
  return running.filter((migration) => {
    const vmi = vmiOf(migration);
    if (!vmi) return false;
    return vmi.status?.nodeName === node || vmi.status?.migrationState?.sourceNode === node;
  }).length;
}

export type CapacityVerdict = { ok: true } | { ok: false; message: string };

export interface CapacityInput {
  vmi: VirtualMachineInstance;
  running: readonly StoredVMIM[];
  vmiOf: LimitLookups["vmiOf"];
  parallelMigrationsPerCluster: number;
  parallelOutboundMigrationsPerNode: number;
}

/** Whether one more migration may create its target pod now; the log line upstream writes when not. */
export function checkCapacity(input: CapacityInput): CapacityVerdict {
  const { vmi, running } = input;
  const name = `${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}`;
  if (running.length >= input.parallelMigrationsPerCluster) {
    return {
      ok: false,
      message: `Waiting to schedule target pod for vmi [${name}] migration because total running parallel migration count [${running.length}] is currently at the global cluster limit.`,
    };
  }
  const outbound = outboundMigrationsOnNode(vmi.status?.nodeName ?? "", running, input.vmiOf);
  if (outbound >= input.parallelOutboundMigrationsPerNode) {
    return {
      ok: false,
      message: `Waiting to schedule target pod for vmi [${name}] migration because total running parallel outbound migrations on target node [${outbound}] has hit outbound migrations per node limit.`,
    };
  }
  return { ok: true };
}

/**
 * Upstream's canMigrateVMI: the VMI's migration state is free, already this migration's, or held by a
 * migration that finished or no longer exists.
 */
export function canMigrateVMI(
  migration: StoredVMIM,
  vmi: VirtualMachineInstance,
  migrationsInNamespace: readonly StoredVMIM[],
): boolean {
  const current = vmi.status?.migrationState?.migrationUid ?? "";
  if (current === "" || current === migration.metadata?.uid) return true;
  const holder = migrationsInNamespace.find((other) => other.metadata?.uid === current);
  return !holder || isMigrationFinal(holder);
}

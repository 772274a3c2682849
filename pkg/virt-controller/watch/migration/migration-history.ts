// What a VMI's earlier migrations decide (upstream's garbageCollectFinalizedMigrations and
// handleMigrationBackoff): only the newest finished migrations are kept, and an evacuation or
// workload-update migration that follows failed ones waits 20 s, doubling per consecutive failure.
import {
  EvacuationMigrationAnnotation,
  FuncTestForceIgnoreMigrationBackoffAnnotation,
  isMigrationFinal,
  MigrationPhase,
  WorkloadUpdateMigrationAnnotation,
  type StoredVMIM,
} from "./vmim.js";
import { isBeingDeleted } from "../../../controller/object.js";

/** Finished migrations kept per VMI before the oldest are deleted. */
export const FinalizedMigrationGarbageCollectionBuffer = 5;
const FirstBackoffMs = 20_000;

const created = (migration: StoredVMIM): number =>
  Date.parse(migration.metadata?.creationTimestamp ?? "") || 0;

/** Oldest first, as upstream sorts by creation time. */
const byAge = (migrations: readonly StoredVMIM[]): StoredVMIM[] =>
  [...migrations].sort((a, b) => created(a) - created(b));

/** Names of the VMI's finished migrations to delete: all but the newest five. */
export function migrationsToGarbageCollect(migrationsOfVMI: readonly StoredVMIM[]): string[] {
  const finalized = byAge(migrationsOfVMI).filter(
    (migration) => isMigrationFinal(migration) && !isBeingDeleted(migration),
  );
  const excess = finalized.length - FinalizedMigrationGarbageCollectionBuffer;
  return excess > 0 ? finalized.slice(0, excess).map((migration) => migration.metadata?.name ?? "") : [];
}

const annotated = (migration: StoredVMIM, key: string): boolean =>
  migration.metadata?.annotations?.[key] !== undefined;

const backoffEligible = (migration: StoredVMIM): boolean =>
  annotated(migration, EvacuationMigrationAnnotation) ||
  annotated(migration, WorkloadUpdateMigrationAnnotation);

function failedAt(migration: StoredVMIM): number {
  const stamp = migration.status?.phaseTransitionTimestamps?.find(
    (entry) => entry.phase === MigrationPhase.Failed,
  );
  return Date.parse(stamp?.phaseTransitionTimestamp ?? "") || 0;
}

/**
 * How long (ms) this migration must still wait before its target pod is made; 0 when it need not. Only
 * the newest of the VMI's evacuation and workload-update migrations backs off, counting the failures
 * since the last success.
 */
export function migrationBackoffMs(
  migration: StoredVMIM,
  migrationsOfVMI: readonly StoredVMIM[],
  now: number,
): number {
  if (annotated(migration, FuncTestForceIgnoreMigrationBackoffAnnotation) || !backoffEligible(migration))
    return 0;
  const eligible = byAge(migrationsOfVMI.filter(backoffEligible)).reverse();
  if (eligible.length < 2 || eligible[0]?.metadata?.uid !== migration.metadata?.uid) return 0;
  let backoff = 0;
  for (const earlier of eligible.slice(1)) {
    if (earlier.status?.phase === MigrationPhase.Succeeded) break;
    if (isBeingDeleted(earlier)) continue;
    if (earlier.status?.phase === MigrationPhase.Failed)
      backoff = backoff === 0 ? FirstBackoffMs : backoff * 2;
  }
  if (backoff === 0) return 0;
  const previous = eligible[1];
  return Math.max(0, (previous ? failedAt(previous) : 0) + backoff - now);
}

// The bookkeeping of a migration attempt in the launcher's metadata (upstream
// live-migration-source.go: initializeMigrationMetadata, setMigrationResultHelper): a migration
// uid runs once, its outcome is written once, and an abort in progress holds the outcome back
// until the abort itself succeeded or failed.
import type { MigrationMetadata } from "./api/domain-object.js";
import { MigrationAbortStatus } from "./api/domain-object.js";
import type { MetadataCache } from "./metadata-cache.js";

/** Upstream domainerrors.MigrationAbortInProgressError. */
export class MigrationAbortInProgressError extends Error {
  constructor() {
    super("Migration abort is in progress");
  }
}

/** Upstream migrations.CancelMigrationFailedVmiNotMigratingErr. */
export const CANCEL_MIGRATION_FAILED_NOT_MIGRATING = "failed to cancel migration - vmi is not migrating";

/** metav1.Time as JSON: RFC 3339 in whole seconds. */
export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * Starts the metadata of migration `uid`; true when that migration is running already. A migration
 * that has ended is refused: attempts are one shot, like pods.
 */
export function initializeMigrationMetadata(
  metadata: MetadataCache,
  uid: string,
  mode: string,
  now: Date,
): boolean {
  const current = metadata.loadMigration();
  if (current && current.uid === uid) {
    if (current.endTimestamp === undefined) return true;
    throw new Error(
      `migration job ${uid} already executed, finished at ${current.endTimestamp}, ` +
        `failed: ${current.failed === true}, abortStatus: ${current.abortStatus ?? ""}`,
    );
  }
  metadata.storeMigration({ uid, startTimestamp: timestamp(now), mode });
  return false;
}

/**
 * Records the outcome (or an abort's state). While an abort is in progress only the abort's own
 * result may be written; a migration that has ended keeps its first outcome.
 */
export function setMigrationResult(
  metadata: MetadataCache,
  failed: boolean,
  reason: string,
  abortStatus: string,
  now: Date,
): void {
  const current = metadata.loadMigration();
  if (!current) return;
  const inProgress = current.abortStatus === MigrationAbortStatus.InProgress;
  if (inProgress && abortStatus === MigrationAbortStatus.InProgress)
    throw new MigrationAbortInProgressError();
  if (
    inProgress &&
    abortStatus !== MigrationAbortStatus.Failed &&
    abortStatus !== MigrationAbortStatus.Succeeded
  ) {
    throw new MigrationAbortInProgressError();
  }
  if (current.endTimestamp !== undefined) return;
  metadata.updateMigration((migration): MigrationMetadata => {
    const next: MigrationMetadata = { ...migration, abortStatus };
    if (failed) {
      next.failed = true;
      next.failureReason = reason;
    }
    // Only a migration that was not aborted, or whose abort went through, is over.
    if (abortStatus === "" || abortStatus === MigrationAbortStatus.Succeeded)
      next.endTimestamp = timestamp(now);
    return next;
  });
}

/** Upstream isLiveMigrationInProgress: started here and not over yet. */
export function isMigrationInProgress(metadata: MetadataCache): boolean {
  const migration = metadata.loadMigration();
  return migration?.startTimestamp !== undefined && migration.endTimestamp === undefined;
}

/** Upstream setEndTimestamp (target side): the migration has arrived, whatever was recorded before. */
export function setEndTimestamp(metadata: MetadataCache, now: Date): void {
  metadata.updateMigration((migration) =>
    migration?.endTimestamp !== undefined ? migration : { ...migration, endTimestamp: timestamp(now) },
  );
}

// What the launcher knows about its VMI beyond the domain XML (upstream virt-launcher/metadata
// Cache): the VMI's uid, the grace-period bookkeeping of a shutdown and the state of a live
// migration. It is reported with every domain event; a change triggers one.
import type {
  GracePeriodMetadata,
  LauncherKubeVirtMetadata,
  MigrationMetadata,
} from "./api/domain-object.js";

export class MetadataCache {
  private uid = "";
  private gracePeriod: GracePeriodMetadata | undefined;
  private migration: MigrationMetadata | undefined;
  private readonly listeners = new Set<() => void>();

  setUID(uid: string): void {
    if (uid === this.uid) return;
    this.uid = uid;
    this.changed();
  }

  /** Updates the grace period in place; listeners hear about it only if something changed. */
  updateGracePeriod(update: (current: GracePeriodMetadata | undefined) => GracePeriodMetadata): void {
    const next = update(this.gracePeriod && { ...this.gracePeriod });
    if (JSON.stringify(next) === JSON.stringify(this.gracePeriod)) return;
    this.gracePeriod = next;
    this.changed();
  }

  /** The migration's state, undefined before any migration began here. */
  loadMigration(): MigrationMetadata | undefined {
    return this.migration && { ...this.migration };
  }

  /** Replaces the migration's state (a new attempt); listeners hear about it if it changed. */
  storeMigration(migration: MigrationMetadata): void {
    this.updateMigration(() => migration);
  }

  /** Updates the migration's state in place (upstream WithSafeBlock). */
  updateMigration(update: (current: MigrationMetadata | undefined) => MigrationMetadata): void {
    const next = update(this.loadMigration());
    if (JSON.stringify(next) === JSON.stringify(this.migration)) return;
    this.migration = next;
    this.changed();
  }

  load(): LauncherKubeVirtMetadata {
    return {
      uid: this.uid,
      ...(this.gracePeriod ? { gracePeriod: { ...this.gracePeriod } } : {}),
      ...(this.migration ? { migration: { ...this.migration } } : {}),
    };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

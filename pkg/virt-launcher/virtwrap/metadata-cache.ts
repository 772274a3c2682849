// What the launcher knows about its VMI beyond the domain XML (upstream virt-launcher/metadata
// Cache): the VMI's uid and the grace-period bookkeeping of a shutdown. It is reported with every
// domain event; a change triggers one.
import type { GracePeriodMetadata, LauncherKubeVirtMetadata } from "./api/domain-object.js";

export class MetadataCache {
  private uid = "";
  private gracePeriod: GracePeriodMetadata | undefined;
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

  load(): LauncherKubeVirtMetadata {
    return { uid: this.uid, ...(this.gracePeriod ? { gracePeriod: { ...this.gracePeriod } } : {}) };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

// kubelet's crash and image-pull back-off (client-go flowcontrol.Backoff, as kubelet configures it): the
// first retry is immediate, then each retry waits twice as long as the previous one, from 10 s up to
// 5 minutes. An entry is forgotten once nothing happened to it for twice the maximum.

export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 300_000;

interface Entry {
  backoffMs: number;
  lastUpdate: number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly initialMs = INITIAL_BACKOFF_MS,
    private readonly maxMs = MAX_BACKOFF_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private expired(eventTime: number, entry: Entry): boolean {
    return eventTime - entry.lastUpdate > this.maxMs * 2;
  }

  /** Records a retry caused by the event at `eventTime` and grows the delay for the one after it. */
  next(key: string, eventTime: number): void {
    const entry = this.entries.get(key);
    const backoffMs =
      !entry || this.expired(eventTime, entry) ? this.initialMs : Math.min(entry.backoffMs * 2, this.maxMs);
    this.entries.set(key, { backoffMs, lastUpdate: this.now() });
  }

  /** The current delay for `key` (0 when it has none). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** Whether a retry for the event at `eventTime` must still wait; the wait ends at eventTime + get(key). */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry)) return false;
    return this.now() - eventTime < entry.backoffMs;
  }

  /** Milliseconds until the back-off for the event at `eventTime` ends (0 when it already has). */
  remaining(key: string, eventTime: number): number {
    return this.isInBackOffSince(key, eventTime) ? eventTime + this.get(key) - this.now() : 0;
  }

  /** Whether less than the current delay has passed since the last `next` (kubelet's image-pull back-off). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(eventTime, entry)) return false;
    return eventTime - entry.lastUpdate < entry.backoffMs;
  }

  /** Milliseconds until the back-off since the last `next` ends (0 when it already has). */
  remainingSinceUpdate(key: string): number {
    const now = this.now();
    const entry = this.entries.get(key);
    return entry && this.isInBackOffSinceUpdate(key, now) ? entry.lastUpdate + entry.backoffMs - now : 0;
  }

  forget(keyPrefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(keyPrefix)) this.entries.delete(key);
  }
}

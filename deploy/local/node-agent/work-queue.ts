// A de-duplicating work queue: a key is handled by one worker at a time, repeated adds fold into one,
// a key added while it is being handled runs again afterwards, and failed keys come back with
// per-key exponential back-off (forgotten on success). `addAfter` schedules a later visit.

export interface SyncResult {
  /** Visit the key again after this many milliseconds (level-triggered "check back later"). */
  requeueAfterMs?: number;
}

export type SyncFn = (key: string) => Promise<SyncResult | void>;

export interface WorkQueueOptions {
  workers: number;
  errorBackoffBaseMs?: number;
  errorBackoffMaxMs?: number;
  onError?: (key: string, err: unknown) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private running = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly sync: SyncFn,
    private readonly options: WorkQueueOptions,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after `ms`; an earlier pending visit for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.workers && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.process(key);
    }
    if (this.running === 0 && this.queue.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async process(key: string): Promise<void> {
    try {
      const result = await this.sync(key);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.options.onError?.(key, err);
      const base = this.options.errorBackoffBaseMs ?? 1000;
      this.addAfter(key, Math.min(base * 2 ** (failures - 1), this.options.errorBackoffMaxMs ?? 30_000));
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }

  /** Resolves once no key is queued or being handled (timers may still be pending). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
  }
}

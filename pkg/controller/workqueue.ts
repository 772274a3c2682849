import { Fifo } from "./fifo.js";
import { defaultLogger, type Logger } from "./log.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";

// client-go's rate-limited delaying work queue. An item is in at most one of two places at a time:
// queued (waiting for a worker) or processing; an item added while processing is marked dirty and queued
// again when its worker calls done, so no two workers ever hold the same item and repeated adds fold.
// Items are compared by identity: use strings (namespace/name keys) or other primitives.

/** What a sync handler returns: nothing (done), or when to look again. Throwing retries with backoff. */
export type SyncResult = void | { requeueAfter: number };
export type SyncHandler<T> = (item: T) => SyncResult | Promise<SyncResult>;

export interface WorkQueueOptions<T> {
  rateLimiter?: RateLimiter<T>;
  name?: string;
  logger?: Logger;
}

interface Delayed {
  readyAt: number;
  timer: NodeJS.Timeout;
}

export class WorkQueue<T extends NonNullable<unknown>> {
  private readonly queue = new Fifo<T>();
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly delayed = new Map<T, Delayed>();
  private readonly getters: Array<(item: T | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private readonly rateLimiter: RateLimiter<T>;
  private readonly logger: Logger;
  private stopping = false;

  constructor(private readonly options: WorkQueueOptions<T> = {}) {
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>();
    this.logger = options.logger ?? defaultLogger;
  }

  /** Items waiting for a worker (not counting those being processed or delayed). */
  len(): number {
    return this.queue.length;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  add(item: T): void {
    if (this.stopping || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /**
   * The next item, marked as processing until `done(item)`. Waits while the queue is empty; resolves
   * undefined once the queue is shut down and empty.
   */
  get(): Promise<T | undefined> {
    const item = this.queue.shift();
    if (item !== undefined) return Promise.resolve(this.startProcessing(item));
    if (this.stopping) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.enqueue(item);
    if (this.processing.size === 0) for (const wake of this.drainWaiters.splice(0)) wake();
    if (this.isIdle()) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /**
   * Resolves once no item is queued or processing (delayed items may still be pending): lets a test, or
   * a caller that just fed the queue, wait until the workers caught up.
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  /** Adds the item once `delayMs` has passed; of several pending delays for one item the earliest wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.stopping) return;
    if (delayMs <= 0) return this.add(item);
    const readyAt = Date.now() + delayMs;
    const pending = this.delayed.get(item);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(item);
      this.add(item);
    }, delayMs);
    this.delayed.set(item, { readyAt, timer });
  }

  /** Adds the item after the rate limiter's delay: per-item backoff and the overall rate limit. */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Ends the item's backoff: call after it was processed successfully. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Stops accepting items and drops delayed ones; workers still get what is queued, then undefined. */
  shutDown(): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  /** shutDown, then resolves once no item is being processed. */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Runs `workers` loops of get → handler → forget/requeue → done until the signal aborts, then shuts the
   * queue down and resolves when every worker has finished its item and the queue is empty.
   */
  async run(workers: number, handler: SyncHandler<T>, signal: AbortSignal): Promise<void> {
    const stop = () => this.shutDown();
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    try {
      await Promise.all(Array.from({ length: workers }, () => this.worker(handler)));
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }

  private async worker(handler: SyncHandler<T>): Promise<void> {
    for (let item = await this.get(); item !== undefined; item = await this.get()) {
      await this.processOne(item, handler);
    }
  }

  private async processOne(item: T, handler: SyncHandler<T>): Promise<void> {
    try {
      const result = await handler(item);
      this.forget(item);
      if (result) this.addAfter(item, result.requeueAfter);
    } catch (err) {
      this.logger.info(
        { queue: this.options.name, key: item, err },
        "sync failed, re-enqueuing with backoff",
      );
      this.addRateLimited(item);
    } finally {
      this.done(item);
    }
  }

  private enqueue(item: T): void {
    const getter = this.getters.shift();
    if (getter) getter(this.startProcessing(item));
    else this.queue.push(item);
  }

  private startProcessing(item: T): T {
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }
}

import { isGone } from "./api-error.js";
import { Backoff, systemClock, type Clock } from "./clock.js";
import type { Decoder, KubeClient } from "./client.js";
import type { GroupVersionResource } from "./gvr.js";
import { IndexedStore, type Indexers } from "./indexers.js";
import {
  resourceSource,
  type ListWatchSource,
  type SourceEvent,
  type SourceScope,
} from "./informer-source.js";
import type { Selector } from "./label-selector.js";
import { defaultLogger, type Logger } from "./log.js";
import { keyOf, type KubeObject } from "./object.js";

// client-go's SharedIndexInformer, single-threaded: list, then watch from the list's resourceVersion, keep
// an indexed cache, tell handlers about add/update/delete, relist when the watch's resourceVersion expires.

export interface EventHandlers<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  /** Receives the last state the cache knew. */
  delete?(obj: T): void;
}

export interface InformerOptions<T> {
  indexers?: Indexers<T>;
  /** Re-deliver every cached object as an update this often (0 or absent: never). */
  resyncPeriodMs?: number;
  logger?: Logger;
  clock?: Clock;
  /** Names the informer in logs. */
  name?: string;
}

// A watch that ends this fast without any event is treated as a failure, so a server that keeps closing
// watches is retried with backoff instead of in a hot loop (client-go's "very short watch").
const shortWatchMs = 1000;

class WatchExpired extends Error {}

export class Informer<T extends KubeObject> {
  private readonly store: IndexedStore<T>;
  private readonly handlers = new Set<EventHandlers<T>>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly backoff = new Backoff(800, 30_000);
  private resourceVersion = "";
  private synced = false;
  private running = false;
  private syncWaiters: Array<() => void> = [];

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.store = new IndexedStore(options.indexers);
    this.logger = options.logger ?? defaultLogger;
    this.clock = options.clock ?? systemClock;
  }

  /** Registers handlers; objects already cached are delivered to `add` right away, as client-go does. */
  addEventHandler(handlers: EventHandlers<T>): () => void {
    this.handlers.add(handlers);
    for (const obj of this.store.list()) this.call("add", () => handlers.add?.(obj));
    return () => this.handlers.delete(handlers);
  }

  /** One callback for every kind of change: what level-triggered controllers need to enqueue a key. */
  onChange(callback: (obj: T) => void): () => void {
    return this.addEventHandler({ add: callback, update: (_old, obj) => callback(obj), delete: callback });
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once the first list is in the cache, false if the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      });
    });
  }

  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  getByName(namespace: string, name: string): T | undefined {
    return this.store.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return this.store.list();
  }

  keys(): string[] {
    return this.store.keys();
  }

  byIndex(indexName: string, value: string): T[] {
    return this.store.byIndex(indexName, value);
  }

  indexKeys(indexName: string, value: string): string[] {
    return this.store.indexKeys(indexName, value);
  }

  bySelector(selector: Selector, namespace?: string): T[] {
    return this.store.bySelector(selector, namespace);
  }

  /** Lists and watches until the signal aborts; never rejects (failures are logged and retried). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`informer ${this.options.name ?? ""} is already running`);
    this.running = true;
    const resync = this.options.resyncPeriodMs
      ? this.resyncLoop(this.options.resyncPeriodMs, signal)
      : undefined;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
        }
        await this.watchOnce(signal);
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof WatchExpired || isGone(err)) {
          this.logger.info({ informer: this.options.name, err }, "watch expired, relisting");
          needList = true;
          continue;
        }
        this.logger.warn({ informer: this.options.name, err }, "list/watch failed, retrying");
        await this.clock.sleep(this.backoff.next(), signal);
      }
    }
    await resync;
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const { items, resourceVersion } = await this.source.list(signal);
    if (signal.aborted) return;
    this.replace(items);
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const wake of this.syncWaiters.splice(0)) wake();
    }
  }

  /** Makes the cache equal the list: deletions for what vanished, then adds and updates. */
  private replace(items: T[]): void {
    const incoming = new Map(items.map((obj) => [keyOf(obj), obj]));
    for (const key of this.store.keys()) {
      if (!incoming.has(key)) this.remove(key);
    }
    for (const obj of incoming.values()) this.upsert(obj);
  }

  private async watchOnce(signal: AbortSignal): Promise<void> {
    const watchSignal = new AbortController();
    const stop = () => watchSignal.abort();
    signal.addEventListener("abort", stop, { once: true });
    let failure: Error | undefined;
    let events = 0;
    const started = this.clock.now();
    const onEvent = (event: SourceEvent<T>) => {
      if (failure) return;
      events++;
      if (event.type === "ERROR") {
        failure = isGone(event.error) ? new WatchExpired(event.error.message) : event.error;
        watchSignal.abort();
        return;
      }
      this.apply(event);
    };
    try {
      await this.source.watch(this.resourceVersion, watchSignal.signal, onEvent);
    } finally {
      signal.removeEventListener("abort", stop);
    }
    if (failure) throw failure;
    if (signal.aborted) return;
    if (events === 0 && this.clock.now() - started < shortWatchMs) throw new Error("very short watch");
    this.backoff.reset();
  }

  private apply(event: Exclude<SourceEvent<T>, { type: "ERROR" }>): void {
    const rv = event.object.metadata?.resourceVersion;
    if (event.type === "DELETED") this.remove(keyOf(event.object), event.object);
    else if (event.type !== "BOOKMARK") this.upsert(event.object);
    if (rv) this.resourceVersion = rv;
  }

  private upsert(obj: T): void {
    const old = this.store.upsert(obj);
    if (old) this.dispatch("update", (h) => h.update?.(old, obj));
    else this.dispatch("add", (h) => h.add?.(obj));
  }

  private remove(key: string, finalState?: T): void {
    const old = this.store.remove(key);
    if (old) this.dispatch("delete", (h) => h.delete?.(finalState ?? old));
  }

  private async resyncLoop(periodMs: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.clock.sleep(periodMs, signal);
      if (signal.aborted || !this.synced) continue;
      for (const obj of this.store.list()) this.dispatch("update", (h) => h.update?.(obj, obj));
    }
  }

  private dispatch(kind: string, deliver: (h: EventHandlers<T>) => void): void {
    for (const handlers of this.handlers) this.call(kind, () => deliver(handlers));
  }

  // A failing handler must not stop the informer or starve the other handlers.
  private call(kind: string, deliver: () => void): void {
    try {
      deliver();
    } catch (err) {
      this.logger.error({ informer: this.options.name, err, kind }, "event handler failed");
    }
  }
}

export interface ResourceInformerOptions<T> extends InformerOptions<T>, SourceScope {
  decode?: Decoder<T>;
}

/** An informer over any group/version/resource, optionally narrowed to a namespace or selectors. */
export function resourceInformer<T extends KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  options: ResourceInformerOptions<T> = {},
): Informer<T> {
  const { namespace, labelSelector, fieldSelector, decode, ...informerOptions } = options;
  const source = resourceSource(client.resource<T>(gvr, decode), { namespace, labelSelector, fieldSelector });
  return new Informer(source, { name: gvr.resource, ...informerOptions });
}

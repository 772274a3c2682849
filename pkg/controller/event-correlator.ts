import { systemClock, type Clock } from "./clock.js";
import { eventName, formatTime, type CoreEvent, type EventCountPatch } from "./event-types.js";
import { LruCache } from "./lru.js";
import { TokenBucket } from "./token-bucket.js";

// client-go's EventCorrelator (tools/record/events_cache.go), in three steps per event:
// 1. aggregate: 10 events differing only in message within 10 minutes become one
//    "(combined from similar events): ..." event;
// 2. de-duplicate: an identical event bumps count/lastTimestamp of the existing Event (a patch);
// 3. spam filter: per source+object token bucket, burst 25, refilled one per 5 minutes.
// Every cache is an LRU bounded to 4096 entries.

export interface CorrelatorOptions {
  clock?: Pick<Clock, "now">;
  lruCacheSize?: number;
  burst?: number;
  qps?: number;
  maxEvents?: number;
  maxIntervalSeconds?: number;
}

export interface CorrelationResult {
  /** The event to write, or undefined when the spam filter dropped it. */
  event?: CoreEvent;
  /** Present when an Event object already exists and should be patched instead of created. */
  patch?: EventCountPatch;
}

const join = (parts: Array<string | undefined>): string => parts.map((p) => p ?? "").join("");

function sourceAndObject(e: CoreEvent): Array<string | undefined> {
  const o = e.involvedObject;
  return [e.source.component, e.source.host, o.kind, o.namespace, o.name];
}

function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([...sourceAndObject(e), o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
}

function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([...sourceAndObject(e), o.uid, o.apiVersion, e.type]);
}

function aggregateKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([
    ...sourceAndObject(e),
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  ]);
}

interface AggregateRecord {
  messages: Set<string>;
  lastTimestamp: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string | undefined;
}

export class EventCorrelator {
  private readonly clock: Pick<Clock, "now">;
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;
  private readonly aggregates: LruCache<string, AggregateRecord>;
  private readonly observed: LruCache<string, EventLog>;
  private readonly spam: LruCache<string, TokenBucket>;

  constructor(options: CorrelatorOptions = {}) {
    const size = options.lruCacheSize ?? 4096;
    this.clock = options.clock ?? systemClock;
    this.burst = options.burst ?? 25;
    this.qps = options.qps ?? 1 / 300;
    this.maxEvents = options.maxEvents ?? 10;
    this.maxIntervalMs = (options.maxIntervalSeconds ?? 600) * 1000;
    this.aggregates = new LruCache(size);
    this.observed = new LruCache(size);
    this.spam = new LruCache(size);
  }

  correlate(incoming: CoreEvent): CorrelationResult {
    const { event: aggregated, key } = this.aggregate(incoming);
    const { event, patch } = this.observe(aggregated, key);
    if (this.isSpam(event)) return {};
    return patch ? { event, patch } : { event };
  }

  /** Remembers what the server stored (name, resourceVersion, count) so the next repeat patches it. */
  updateState(stored: CoreEvent): void {
    this.observed.set(eventKey(stored), {
      count: stored.count,
      firstTimestamp: stored.firstTimestamp,
      name: stored.metadata.name,
      resourceVersion: stored.metadata.resourceVersion,
    });
  }

  private aggregate(event: CoreEvent): { event: CoreEvent; key: string } {
    const now = this.clock.now();
    const aggKey = aggregateKey(event);
    let record = this.aggregates.get(aggKey);
    if (!record || now - record.lastTimestamp > this.maxIntervalMs) {
      record = { messages: new Set(), lastTimestamp: now };
    }
    record.messages.add(event.message);
    record.lastTimestamp = now;
    this.aggregates.set(aggKey, record);
    if (record.messages.size < this.maxEvents) return { event, key: eventKey(event) };

    // Keep the set just below the threshold so every further distinct message stays aggregated.
    const first = record.messages.values().next();
    if (!first.done) record.messages.delete(first.value);
    const timestamp = formatTime(now);
    const combined: CoreEvent = {
      ...event,
      metadata: {
        name: eventName(event.involvedObject.name ?? "", now),
        namespace: event.metadata.namespace,
      },
      count: 1,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      message: `(combined from similar events): ${event.message}`,
    };
    return { event: combined, key: aggKey };
  }

  private observe(incoming: CoreEvent, key: string): { event: CoreEvent; patch?: EventCountPatch } {
    const last = this.observed.get(key);
    let event = incoming;
    let patch: EventCountPatch | undefined;
    if (last) {
      event = {
        ...incoming,
        metadata: { ...incoming.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: event.count, lastTimestamp: event.lastTimestamp, message: event.message };
    }
    this.observed.set(key, {
      count: event.count,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name,
      resourceVersion: event.metadata.resourceVersion,
    });
    return patch ? { event, patch } : { event };
  }

  private isSpam(event: CoreEvent): boolean {
    const key = spamKey(event);
    let bucket = this.spam.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.qps, this.burst, this.clock);
      this.spam.set(key, bucket);
    }
    return !bucket.tryAccept();
  }
}

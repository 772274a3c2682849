import { ApiError, isNotFound } from "./api-error.js";
import { systemClock, type Clock } from "./clock.js";
import type { KubeClient, ResourceClient } from "./client.js";
import { EventCorrelator } from "./event-correlator.js";
import {
  eventName,
  formatTime,
  type CoreEvent,
  type EventCountPatch,
  type EventSource,
  type EventType,
  type ObjectReference,
} from "./event-types.js";
import { Fifo } from "./fifo.js";
import { coreGVR } from "./gvr.js";
import { defaultLogger, type Logger } from "./log.js";
import type { KubeObject } from "./object.js";

// client-go's event recorder + broadcaster + sink, for core/v1 Events: `event()` never blocks a controller;
// events go through a bounded queue to one writer that correlates them (aggregation, counting, spam
// filter) and creates or patches Event objects, retrying only connection failures.

export interface EventSink {
  create(event: CoreEvent): Promise<CoreEvent>;
  patch(namespace: string, name: string, patch: EventCountPatch): Promise<CoreEvent>;
}

export function clientEventSink(client: KubeClient): EventSink {
  const events: ResourceClient<CoreEvent> = client.resource<CoreEvent>(coreGVR.events);
  return {
    create: (event) => events.create(event),
    patch: (namespace, name, patch) => events.patch(namespace, name, "strategic", patch),
  };
}

export interface EventRecorderOptions {
  clock?: Clock;
  logger?: Logger;
  correlator?: EventCorrelator;
  /** Events waiting to be written beyond this are dropped (client-go: 1000). */
  maxQueuedEvents?: number;
  /** Attempts per event when the apiserver cannot be reached (client-go: 12). */
  maxTriesPerEvent?: number;
  /** Pause between attempts (client-go: 10 s; the first one is randomized). */
  retryDelayMs?: number;
}

export function referenceOf(obj: KubeObject): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = {
    kind: obj.kind,
    namespace: m.namespace,
    name: m.name,
    uid: m.uid,
    apiVersion: obj.apiVersion,
    resourceVersion: m.resourceVersion,
  };
  return Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== undefined && v !== ""));
}

export class EventRecorder {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly correlator: EventCorrelator;
  private readonly maxQueued: number;
  private readonly maxTries: number;
  private readonly retryDelayMs: number;
  private readonly pending = new Fifo<CoreEvent>();
  private readonly stopping = new AbortController();
  private writer: Promise<void> | undefined;

  constructor(
    private readonly sink: EventSink,
    private readonly source: EventSource,
    options: EventRecorderOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? defaultLogger;
    this.correlator = options.correlator ?? new EventCorrelator({ clock: this.clock });
    this.maxQueued = options.maxQueuedEvents ?? 1000;
    this.maxTries = options.maxTriesPerEvent ?? 12;
    this.retryDelayMs = options.retryDelayMs ?? 10_000;
  }

  /** Records an event about obj (which needs kind, apiVersion and name); never throws, never waits. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const ref = referenceOf(obj);
    if (!ref.kind || !ref.name || !ref.apiVersion) {
      this.logger.error({ ref, reason }, "could not construct reference, will not report event");
      return;
    }
    if (type !== "Normal" && type !== "Warning") {
      this.logger.error({ type }, "unsupported event type");
      return;
    }
    if (this.stopping.signal.aborted) return;
    if (this.pending.length >= this.maxQueued) {
      this.logger.error({ ref, reason }, "unable to record event: too many queued events, dropped event");
      return;
    }
    this.pending.push(this.makeEvent(ref, type, reason, message));
    this.writer ??= this.drain();
  }

  /** Resolves once every event recorded so far has been written (or given up on). */
  async flush(): Promise<void> {
    while (this.writer) await this.writer;
  }

  /** Stops accepting events, abandons retry waits, and waits for the writer to finish. */
  async shutdown(): Promise<void> {
    this.stopping.abort();
    await this.flush();
  }

  private makeEvent(ref: ObjectReference, type: EventType, reason: string, message: string): CoreEvent {
    const now = this.clock.now();
    const timestamp = formatTime(now);
    return {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: eventName(ref.name ?? "", now), namespace: ref.namespace || "default" },
      involvedObject: ref,
      reason,
      message,
      source: this.source,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? "",
    };
  }

  private async drain(): Promise<void> {
    try {
      for (let event = this.pending.shift(); event; event = this.pending.shift()) {
        await this.record(event);
      }
    } finally {
      this.writer = undefined;
    }
  }

  private async record(incoming: CoreEvent): Promise<void> {
    const { event, patch } = this.correlator.correlate(incoming);
    if (!event) return;
    for (let tries = 1; ; tries++) {
      if (await this.write(event, patch)) return;
      if (tries >= this.maxTries) {
        this.logger.error({ reason: event.reason }, "unable to write event (retry limit exceeded!)");
        return;
      }
      const delay = tries === 1 ? this.retryDelayMs * Math.random() : this.retryDelayMs;
      await this.clock.sleep(delay, this.stopping.signal);
      if (this.stopping.signal.aborted) {
        this.logger.error({ reason: event.reason }, "unable to write event (recorder is shut down)");
        return;
      }
    }
  }

  /** True when done (written, or refused by the server for good); false to retry. */
  private async write(event: CoreEvent, patch: EventCountPatch | undefined): Promise<boolean> {
    try {
      let stored: CoreEvent | undefined;
      if (patch) {
        stored = await this.sink
          .patch(event.metadata.namespace, event.metadata.name, patch)
          .catch((err: unknown) => {
            if (isNotFound(err)) return undefined; // the Event expired on the server: create it afresh
            throw err;
          });
      }
      stored ??= await this.sink.create({
        ...event,
        metadata: { ...event.metadata, resourceVersion: undefined },
      });
      this.correlator.updateState(stored);
      return true;
    } catch (err) {
      if (err instanceof ApiError) {
        this.logger.debug({ err, reason: event.reason }, "server rejected event (will not retry!)");
        return true;
      }
      this.logger.warn({ err, reason: event.reason }, "unable to write event (may retry after sleeping)");
      return false;
    }
  }
}

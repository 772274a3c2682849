// Sends domain and Kubernetes events to virt-handler's Notify service (upstream
// notify-client.Notifier): one connection, reopened when a send fails for a transient reason,
// each send retried every second for up to 20 seconds.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../controller/log.js";
import type { Sendable } from "../../handler-launcher-com/grpc-unix.js";
import { isTransientError } from "../../handler-launcher-com/grpc-unix.js";
import { NotifyClient } from "../../handler-launcher-com/notify/v1/client.js";
import type {
  NotifyMethods,
  Response,
  WatchEventType,
} from "../../handler-launcher-com/notify/v1/messages.js";
import { domainToJSON } from "../virtwrap/api/domain-json.js";
import type { DomainObject } from "../virtwrap/api/domain-object.js";
import { errorMessage } from "../../util/error-message.js";

export interface NotifierTimeouts {
  intervalMs: number;
  sendMs: number;
  totalMs: number;
  connectMs: number;
}

export const DEFAULT_NOTIFIER_TIMEOUTS: NotifierTimeouts = {
  intervalMs: 1_000,
  sendMs: 5_000,
  totalMs: 20_000,
  // Upstream dials with a 5 s budget of which 2 s may go to connecting.
  connectMs: 2_000,
};

/** The VMI an event is about (upstream takes an object reference of it). */
export interface VMIReference {
  name: string;
  namespace: string;
  uid: string;
}

export type EventSeverity = "Normal" | "Warning";

export class Notifier {
  private client: NotifyClient | undefined;
  private closed = false;
  /** One send at a time, in order (upstream holds connLock for the whole attempt). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly socketPath: string,
    private readonly log: Logger,
    private readonly timeouts: NotifierTimeouts = DEFAULT_NOTIFIER_TIMEOUTS,
  ) {}

  sendDomainEvent(type: WatchEventType, domain: DomainObject): Promise<void> {
    const request = { domainJSON: Buffer.from(domainToJSON(domain)), eventType: type };
    return this.enqueue("HandleDomainEvent", request, "failed to notify domain event");
  }

  /** A core/v1 Event about the VMI, for virt-handler to record. */
  sendK8sEvent(vmi: VMIReference, severity: EventSeverity, reason: string, message: string): Promise<void> {
    const event = {
      metadata: { creationTimestamp: null },
      involvedObject: {
        kind: "VirtualMachineInstance",
        namespace: vmi.namespace,
        name: vmi.name,
        uid: vmi.uid,
        apiVersion: "kubevirt.io/v1",
      },
      reason,
      message,
      type: severity,
    };
    return this.enqueue(
      "HandleK8sEvent",
      { eventJSON: Buffer.from(JSON.stringify(event)) },
      "failed to notify k8s event",
    );
  }

  /** Drops the connection; sends still queued or retrying give up. */
  close(): void {
    this.closed = true;
    this.disconnect();
  }

  private disconnect(): void {
    this.client?.close();
    this.client = undefined;
  }

  private enqueue<K extends keyof NotifyMethods>(
    method: K,
    request: Sendable<NotifyMethods[K]["request"]>,
    failure: string,
  ): Promise<void> {
    const sent = this.queue.then(() => this.send(method, request, failure));
    this.queue = sent.catch(() => undefined);
    return sent;
  }

  private async send<K extends keyof NotifyMethods>(
    method: K,
    request: Sendable<NotifyMethods[K]["request"]>,
    failure: string,
  ): Promise<void> {
    const { intervalMs, sendMs, totalMs, connectMs } = this.timeouts;
    const deadline = Date.now() + totalMs;
    let lastError: unknown;
    for (;;) {
      if (this.closed) throw new Error(`${failure}: the notifier is closed`);
      let response: Response | undefined;
      try {
        this.client ??= await NotifyClient.connect(this.socketPath, connectMs);
        response = await this.client.call(method, request, sendMs);
      } catch (error) {
        lastError = error;
        // A gRPC status that retrying cannot change goes straight back to the caller.
        if (this.client !== undefined && !isTransientError(error)) throw error;
        this.log.warn({ err: error, socket: this.socketPath }, `${failure}; retrying`);
        this.disconnect();
      }
      if (response) {
        // Servers that report failure in the response instead of a gRPC status.
        if (!response.success && response.message !== "") throw new Error(`${failure}: ${response.message}`);
        return;
      }
      if (Date.now() + intervalMs > deadline) break;
      await sleep(intervalMs);
    }
    throw new Error(`${failure}: ${errorMessage(lastError)}`);
  }
}

// Turns libvirt's domain events into domain notifications for virt-handler (upstream
// Notifier.StartDomainNotifier + eventCallback): on each event the domain is read afresh and sent
// as MODIFIED, as ADDED when it was just defined, and with a deletion timestamp once libvirt no
// longer has it. Events are handled one at a time, in the order libvirt sent them. The guest agent's
// lifecycle events are news too (the agent channel's state changed) and drive the agent poller, whose
// changed data is sent as well, within the domain's status; so are devices plugged in or out.
import { setTimeout as sleep } from "node:timers/promises";
import type { LibvirtClient } from "../../libvirt/client.js";
import type { DomainEvent } from "../../libvirt/domain-events.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import type { Logger } from "../../controller/log.js";
import { WatchEventType } from "../../handler-launcher-com/notify/v1/messages.js";
import type { DomainConnection } from "../virtwrap/domain-connection.js";
import { isNotFound } from "../virtwrap/domain-connection.js";
import type { DomainObject } from "../virtwrap/api/domain-object.js";
import { nonExistentDomain, readDomain } from "../virtwrap/domain-reader.js";
import { StateChangeReason } from "../virtwrap/api/domain-status.js";
import type { MetadataCache } from "../virtwrap/metadata-cache.js";
import type { Notifier } from "./notifier.js";
import type { AgentPoller } from "../virtwrap/agent-poller/agent-poller.js";
import type { AsyncAgentStore } from "../virtwrap/agent-poller/agent-store.js";
import { withGuestInfo } from "../virtwrap/agent-poller/agent-store.js";

export type EventSource = Pick<LibvirtClient, "subscribeDomainEvents">;

export interface DomainNotifierOptions {
  events: EventSource;
  connection: DomainConnection;
  metadata: MetadataCache;
  notifier: Notifier;
  /** The launcher's one domain: `<namespace>_<name>`. */
  domainName: string;
  log: Logger;
  /** The guest agent's poller and what it read; absent: no agent data is reported. */
  agent?: { store: AsyncAgentStore; poller: Pick<AgentPoller, "updateFromEvent" | "stop"> };
  /** The domain has arrived by migration and resumed (or paused): the target's migration watch starts. */
  onMigratedIn?: () => void;
}

type NotifiedEvent = Extract<DomainEvent, { kind: "lifecycle" | "agent-lifecycle" }>;

interface Lifecycle {
  event: number;
  detail: number;
}

/** Whether a lifecycle event ends the domain for good (undefined, or stopped other than by migration). */
export function isFinalEvent({ event, detail }: Lifecycle): boolean {
  return (
    event === libvirt.VIR_DOMAIN_EVENT_UNDEFINED ||
    (event === libvirt.VIR_DOMAIN_EVENT_STOPPED && detail !== libvirt.VIR_DOMAIN_EVENT_STOPPED_MIGRATED)
  );
}

/**
 * Events only a migration target sees once the guest has arrived (upstream processLifecycleEvent):
 * resumed after the migration, or paused (a paused guest migrated).
 */
export function isMigratedInEvent({ event, detail }: Lifecycle): boolean {
  return (
    (event === libvirt.VIR_DOMAIN_EVENT_RESUMED && detail === libvirt.VIR_DOMAIN_EVENT_RESUMED_MIGRATED) ||
    (event === libvirt.VIR_DOMAIN_EVENT_SUSPENDED && detail === libvirt.VIR_DOMAIN_EVENT_SUSPENDED_PAUSED)
  );
}

/** The watch event type and, for a final event on a vanished domain, the deletion timestamp. */
export function classify(domain: DomainObject, lifecycle: Lifecycle | undefined, now: Date): WatchEventType {
  if (!lifecycle) return WatchEventType.Modified;
  if (isFinalEvent(lifecycle)) {
    if (domain.status.reason === StateChangeReason.NonExistent) {
      domain.objectMeta.deletionTimestamp = now.toISOString().replace(/\.\d+Z$/, "Z");
    }
    return WatchEventType.Modified;
  }
  const added =
    (lifecycle.event === libvirt.VIR_DOMAIN_EVENT_DEFINED &&
      lifecycle.detail === libvirt.VIR_DOMAIN_EVENT_DEFINED_ADDED) ||
    (lifecycle.event === libvirt.VIR_DOMAIN_EVENT_STARTED &&
      lifecycle.detail === libvirt.VIR_DOMAIN_EVENT_STARTED_MIGRATED);
  return added ? WatchEventType.Added : WatchEventType.Modified;
}

export class DomainNotifier {
  private chain: Promise<void> = Promise.resolve();
  private readonly unsubscribes: (() => Promise<void>)[] = [];
  private readonly stopListening: (() => void)[] = [];
  private resolveDeleted!: () => void;
  /** Settles once the final notification (domain gone from libvirt) was handed to the notifier. */
  readonly deleteNotificationSent = new Promise<void>((resolve) => (this.resolveDeleted = resolve));
  private resolveStopped!: () => void;
  /** Settles once the news that the domain stopped (and why) was handed to the notifier. */
  readonly stopNotificationSent = new Promise<void>((resolve) => (this.resolveStopped = resolve));
  private seenEvent = false;
  private stopped = false;

  constructor(private readonly options: DomainNotifierOptions) {}

  async start(): Promise<void> {
    const { events, agent } = this.options;
    for (const eventID of [
      libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE,
      libvirt.VIR_DOMAIN_EVENT_ID_AGENT_LIFECYCLE,
    ]) {
      const subscription = await events.subscribeDomainEvents(eventID, null, (event) => this.enqueue(event));
      this.unsubscribes.push(() => subscription.unsubscribe());
    }
    // A device plugged in or out (a hotplugged disk, say) changes the domain virt-handler reads.
    for (const eventID of [
      libvirt.VIR_DOMAIN_EVENT_ID_DEVICE_ADDED,
      libvirt.VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED,
    ]) {
      const subscription = await events.subscribeDomainEvents(eventID, null, (event) =>
        this.deviceChanged(event),
      );
      this.unsubscribes.push(() => subscription.unsubscribe());
    }
    // A metadata change (grace period, shutdown mark) or new agent data is news for the handler once a
    // domain exists.
    const news = () => {
      if (this.seenEvent) this.enqueue(undefined);
    };
    this.stopListening.push(this.options.metadata.onChange(news));
    if (agent) this.stopListening.push(agent.store.onUpdate(news));
    this.options.log.info("Registered libvirt event notify callback");
  }

  /** Waits for the events queued so far to be handled. */
  drained(): Promise<void> {
    return this.chain;
  }

  /** Stops listening; events still being sent get `graceMs` to go out. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    for (const stop of this.stopListening.splice(0)) stop();
    this.options.agent?.poller.stop();
    for (const unsubscribe of this.unsubscribes.splice(0)) await unsubscribe().catch(() => undefined);
    await Promise.race([this.chain, sleep(graceMs, undefined, { ref: false })]);
  }

  /** Upstream's device added and removed callbacks: the domain as it is now goes out as MODIFIED. */
  private deviceChanged(event: DomainEvent): void {
    if (event.kind !== "device-added" && event.kind !== "device-removed") return;
    if (event.domain.name !== this.options.domainName) return;
    const what = event.kind === "device-added" ? "Added" : "Removed";
    this.options.log.info({ alias: event.devAlias }, `Domain Device ${what} event received`);
    this.enqueue(undefined);
  }

  private enqueue(received: DomainEvent | undefined): void {
    if (this.stopped) return;
    const event =
      received?.kind === "lifecycle" || received?.kind === "agent-lifecycle" ? received : undefined;
    if (received && (!event || event.domain.name !== this.options.domainName)) return;
    if (event) {
      this.seenEvent = true;
      if (event.kind === "lifecycle" && isMigratedInEvent(event)) this.options.onMigratedIn?.();
      if (event.kind === "lifecycle") {
        this.options.log.info(
          { event: event.eventName, detail: event.detailName },
          `DomainLifecycle event ${event.eventName} with reason ${event.detailName} received`,
        );
      } else {
        this.options.log.info(
          `GuestAgentLifecycle event state ${event.state} with reason ${event.reason} received`,
        );
      }
    }
    this.chain = this.chain
      .then(() => this.handle(event))
      .catch((error: unknown) => {
        this.options.log.error({ err: error }, "Could not send domain notify event.");
      });
  }

  private async handle(event: NotifiedEvent | undefined): Promise<void> {
    try {
      await this.notify(event);
    } finally {
      // The poller follows the event even when the domain could not be read (upstream).
      if (event) this.options.agent?.poller.updateFromEvent(event);
    }
  }

  private async notify(received: NotifiedEvent | undefined): Promise<void> {
    const { connection, metadata, notifier, domainName, agent } = this.options;
    const event = received?.kind === "lifecycle" ? received : undefined;
    const dom = await connection.domainLookupByName(domainName).catch((error: unknown) => {
      // Anything but "no such domain" leaves the state unknown: nothing is sent (as upstream).
      if (isNotFound(error)) return undefined;
      throw error;
    });
    const read =
      (dom && (await readDomain(connection, dom, metadata))) ?? nonExistentDomain(domainName, metadata);
    const domain = agent ? withGuestInfo(read, agent.store.domainGuestInfo()) : read;
    const type = classify(domain, event, new Date());
    try {
      await notifier.sendDomainEvent(type, domain);
    } finally {
      if (event && isFinalEvent(event)) this.resolveStopped();
      if (domain.objectMeta.deletionTimestamp) this.resolveDeleted();
    }
  }
}

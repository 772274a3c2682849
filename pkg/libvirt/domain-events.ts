// Domain events as the launcher consumes them. The daemon sends each event registered with
// domainEventCallbackRegisterAny as a MESSAGE whose payload starts with the callbackID; the
// common ones get a typed shape here, the rest are passed on decoded but untyped.
import {
  VirDomainEventCrashedDetailType,
  VirDomainEventDefinedDetailType,
  VirDomainEventPMSuspendedDetailType,
  VirDomainEventResumedDetailType,
  VirDomainEventShutdownDetailType,
  VirDomainEventStartedDetailType,
  VirDomainEventStoppedDetailType,
  VirDomainEventSuspendedDetailType,
  VirDomainEventType,
  VirDomainEventUndefinedDetailType,
} from "./generated/libvirt-api.js";
import type {
  RemoteDomainEventCallbackAgentLifecycleMsg,
  RemoteDomainEventCallbackDeviceAddedMsg,
  RemoteDomainEventCallbackDeviceRemovedMsg,
  RemoteDomainEventCallbackLifecycleMsg,
  RemoteDomainEventCallbackRebootMsg,
  RemoteNonnullDomain,
} from "./generated/remote-protocol.js";
import { enumName } from "./xdr.js";

export type Domain = RemoteNonnullDomain;

export type DomainEvent =
  | {
      kind: "lifecycle";
      callbackID: number;
      domain: Domain;
      /** virDomainEventType, e.g. VIR_DOMAIN_EVENT_STARTED. */
      event: number;
      /** The detail enum that goes with `event`, e.g. VIR_DOMAIN_EVENT_STARTED_BOOTED. */
      detail: number;
      eventName: string;
      detailName: string;
    }
  | { kind: "reboot"; callbackID: number; domain: Domain }
  | { kind: "device-added"; callbackID: number; domain: Domain; devAlias: string }
  | { kind: "device-removed"; callbackID: number; domain: Domain; devAlias: string }
  | { kind: "agent-lifecycle"; callbackID: number; domain: Domain; state: number; reason: number }
  /** Any other callback event: the procedure name and its decoded payload. */
  | { kind: "other"; callbackID: number; procedure: string; message: object };

/** The detail enum of each lifecycle event type, in virDomainEventType order. */
const DETAIL_ENUMS: readonly Readonly<Record<string, number>>[] = [
  VirDomainEventDefinedDetailType,
  VirDomainEventUndefinedDetailType,
  VirDomainEventStartedDetailType,
  VirDomainEventSuspendedDetailType,
  VirDomainEventResumedDetailType,
  VirDomainEventStoppedDetailType,
  VirDomainEventShutdownDetailType,
  VirDomainEventPMSuspendedDetailType,
  VirDomainEventCrashedDetailType,
];

/** Symbolic names of a lifecycle event and its detail, e.g. ["VIR_DOMAIN_EVENT_STOPPED", "..._DESTROYED"]. */
export function lifecycleNames(event: number, detail: number): [string, string] {
  const eventName = enumName(VirDomainEventType, event) ?? `event ${event}`;
  const details = DETAIL_ENUMS[event];
  return [eventName, (details && enumName(details, detail)) ?? `detail ${detail}`];
}

function hasCallbackID(message: object): message is { callbackID: number } {
  return typeof (message as { callbackID?: unknown }).callbackID === "number";
}

/** Turns a decoded callback-event payload into a DomainEvent; null if it carries no callbackID. */
export function toDomainEvent(procedure: string, message: object): DomainEvent | null {
  if (!hasCallbackID(message)) return null;
  switch (procedure) {
    case "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE": {
      const { callbackID, msg } = message as RemoteDomainEventCallbackLifecycleMsg;
      const [eventName, detailName] = lifecycleNames(msg.event, msg.detail);
      return {
        kind: "lifecycle",
        callbackID,
        domain: msg.dom,
        event: msg.event,
        detail: msg.detail,
        eventName,
        detailName,
      };
    }
    case "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_REBOOT": {
      const { callbackID, msg } = message as RemoteDomainEventCallbackRebootMsg;
      return { kind: "reboot", callbackID, domain: msg.dom };
    }
    case "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_DEVICE_ADDED": {
      const { callbackID, dom, devAlias } = message as RemoteDomainEventCallbackDeviceAddedMsg;
      return { kind: "device-added", callbackID, domain: dom, devAlias };
    }
    case "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_DEVICE_REMOVED": {
      const { callbackID, msg } = message as RemoteDomainEventCallbackDeviceRemovedMsg;
      return { kind: "device-removed", callbackID, domain: msg.dom, devAlias: msg.devAlias };
    }
    case "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_AGENT_LIFECYCLE": {
      const { callbackID, dom, state, reason } = message as RemoteDomainEventCallbackAgentLifecycleMsg;
      return { kind: "agent-lifecycle", callbackID, domain: dom, state, reason };
    }
    default:
      return { kind: "other", callbackID: message.callbackID, procedure, message };
  }
}

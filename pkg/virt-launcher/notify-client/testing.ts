// Test helper: a stand-in for virt-handler's Notify server that records what it receives.
import type {
  DomainEventRequest,
  K8sEventRequest,
  Response,
} from "../../handler-launcher-com/notify/v1/messages.js";
import { addNotifyService } from "../../handler-launcher-com/notify/v1/server.js";
import type { SocketServer } from "../../handler-launcher-com/testing.js";
import { serveOnTempSocket } from "../../handler-launcher-com/testing.js";
import { parseDomainJSON } from "../virtwrap/api/domain-json.js";
import type { DomainObject } from "../virtwrap/api/domain-object.js";

export interface ReceivedDomainEvent {
  type: string;
  domain: DomainObject;
  /** The JSON as sent. */
  json: string;
}

export interface RecordingNotifyServer extends SocketServer {
  domainEvents: ReceivedDomainEvent[];
  k8sEvents: unknown[];
  /** Resolves with the first domain event matching `predicate` (already received or future). */
  waitForDomainEvent(predicate: (event: ReceivedDomainEvent) => boolean): Promise<ReceivedDomainEvent>;
}

export interface RecordingNotifyServerOptions {
  /** Where to listen; a fresh temp dir by default. */
  socketPath?: string;
  /** What every call answers. */
  answer?: () => Response;
}

export async function startRecordingNotifyServer(
  options: RecordingNotifyServerOptions = {},
): Promise<RecordingNotifyServer> {
  const answer = options.answer ?? (() => ({ success: true, message: "" }));
  const domainEvents: ReceivedDomainEvent[] = [];
  const k8sEvents: unknown[] = [];
  const waiters: {
    predicate: (event: ReceivedDomainEvent) => boolean;
    resolve: (event: ReceivedDomainEvent) => void;
  }[] = [];
  const server = await serveOnTempSocket(
    "domain-notify-pipe.sock",
    (s) =>
      addNotifyService(s, {
        HandleDomainEvent: (request: DomainEventRequest) => {
          const json = request.domainJSON.toString("utf8");
          const event = { type: request.eventType, domain: parseDomainJSON(json), json };
          domainEvents.push(event);
          for (const waiter of waiters.filter((candidate) => candidate.predicate(event)))
            waiter.resolve(event);
          return Promise.resolve(answer());
        },
        HandleK8sEvent: (request: K8sEventRequest) => {
          k8sEvents.push(JSON.parse(request.eventJSON.toString("utf8")));
          return Promise.resolve(answer());
        },
      }),
    options.socketPath,
  );
  return {
    ...server,
    domainEvents,
    k8sEvents,
    waitForDomainEvent: (predicate) => {
      const seen = domainEvents.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}

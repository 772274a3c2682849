// virt-handler's Notify server (upstream pkg/virt-handler/notify-server): launchers report domain events
// and Kubernetes events here. A domain event only names the VMI to look at again: the VMI controller
// then reads the domain itself (level-triggered), so a lost event costs a resync period, never state.
import * as grpc from "@grpc/grpc-js";
import path from "node:path";
import type { Logger } from "../../controller/index.js";
import { listenOnSocket, stopServer } from "../../handler-launcher-com/grpc-unix.js";
import type { DomainEventRequest, K8sEventRequest } from "../../handler-launcher-com/notify/v1/messages.js";
import { addNotifyService } from "../../handler-launcher-com/notify/v1/server.js";
import { parseDomainJSON } from "../../virt-launcher/virtwrap/api/domain-json.js";
import { errorMessage } from "../../util/error-message.js";

/** The handler's socket in its share dir; launchers reach it through their domain-notify pipe. */
export const DOMAIN_NOTIFY_SOCKET = "domain-notify.sock";

export function domainNotifySocketPath(virtShareDir: string): string {
  return path.join(virtShareDir, DOMAIN_NOTIFY_SOCKET);
}

export interface NotifyServerOptions {
  /** Called with the VMI key (namespace/name) a domain event is about. */
  onDomainEvent: (vmiKey: string, eventType: string) => void;
  logger: Logger;
}

const ok = { success: true, message: "" };

export class DomainNotifyServer {
  private server: grpc.Server | undefined;

  constructor(private readonly opts: NotifyServerOptions) {}

  async start(socketPath: string): Promise<void> {
    const server = new grpc.Server();
    addNotifyService(server, {
      HandleDomainEvent: (request) => Promise.resolve(this.handleDomainEvent(request)),
      HandleK8sEvent: (request) => Promise.resolve(this.handleK8sEvent(request)),
    });
    await listenOnSocket(server, socketPath);
    this.server = server;
  }

  async stop(): Promise<void> {
    if (this.server) await stopServer(this.server);
    this.server = undefined;
  }

  private handleDomainEvent(request: DomainEventRequest) {
    try {
      const domain = parseDomainJSON(request.domainJSON.toString());
      const { namespace, name } = domain.objectMeta;
      if (!namespace || !name) return { success: false, message: "domain event names no VMI" };
      this.opts.onDomainEvent(`${namespace}/${name}`, request.eventType);
      return ok;
    } catch (error) {
      const message = errorMessage(error);
      this.opts.logger.error({ err: error }, "Failed to unmarshal domain event");
      return { success: false, message };
    }
  }

  // Recording these as Events on the VMI comes with the event recorder wiring; logged meanwhile.
  private handleK8sEvent(request: K8sEventRequest) {
    this.opts.logger.info({ event: request.eventJSON.toString() }, "Event from virt-launcher");
    return ok;
  }
}

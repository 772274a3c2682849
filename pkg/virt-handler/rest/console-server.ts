// virt-handler's mutual-TLS server for virt-api (upstream cmd/virt-handler runServer with
// SetupTLSForVirtHandlerServer): HTTPS on --console-server-port with the handler's serving certificate;
// a client must present a certificate that chains to the KubeVirt CA bundle, is meant for client auth and
// is named kubevirt.io:system:client:virt-handler. Certificate and CA are swapped in when they rotate.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../../controller/index.js";
import { commonNameOf, verifyCommonName, VIRT_HANDLER_TYPE } from "../../util/tls/tls.js";
import { readServingTLS, reloadOnChange } from "../../certificates/bootstrap/serving-cert.js";
import { NOT_A_WEBSOCKET, PAGE_NOT_FOUND, parseStreamPath, type ConsoleHandler } from "./console.js";
import type { LifecycleHandler } from "./lifecycle.js";
import type { ScreenshotHandler } from "./screenshot.js";
import type { GuestInfoHandler } from "./guest-info.js";

/** Where the KubeVirt CA bundle comes from (a CAManager in the process). */
export interface ClientCASource {
  current(): string | undefined;
  onChange(listener: (pem: string) => void): () => void;
}

export interface ConsoleServerOptions {
  bindAddress: string;
  port: number;
  certFile: string;
  keyFile: string;
  clientCA: ClientCASource;
  handler: Pick<ConsoleHandler, "handleUpgrade" | "endAll">;
  /** The pause/unpause endpoints, served on the same port as upstream's REST server. */
  lifecycle?: Pick<LifecycleHandler, "handleRequest">;
  /** The VNC screenshot endpoint, on the same port too. */
  screenshot?: Pick<ScreenshotHandler, "handleRequest">;
  /** The guest agent endpoints (guestosinfo, userlist, filesystemlist), on the same port. */
  guestInfo?: Pick<GuestInfoHandler, "handleRequest">;
  logger: Logger;
  /** How often the certificate files are polled for a rotation. */
  reloadIntervalMs?: number;
}

export class ConsoleServer {
  private server: Server | undefined;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly options: ConsoleServerOptions) {}

  /** Listens once the CA bundle is known (nothing can be verified before); resolves with the bound port. */
  async start(): Promise<number> {
    const { options } = this;
    const ca = options.clientCA.current();
    if (ca === undefined) throw new Error("No ca certificate, server is not yet ready to receive traffic");
    const tls = readServingTLS(options.certFile, options.keyFile);
    const server = createServer({
      cert: tls.certPem,
      key: tls.keyPem,
      ca,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
    });
    this.server = server;
    server.on("secureConnection", (socket: TLSSocket) => {
      const refused = verifyCommonName(commonNameOf(socket.getPeerCertificate()), "client", [
        VIRT_HANDLER_TYPE,
      ]);
      if (refused) {
        options.logger.error({ reason: refused }, "refusing a console client");
        socket.destroy();
      }
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      if (options.lifecycle?.handleRequest(request, response)) return;
      if (options.guestInfo?.handleRequest(request, response)) return;
      if (options.screenshot?.handleRequest(request, response)) return;
      const refusal = parseStreamPath(request.url ?? "") ? NOT_A_WEBSOCKET : PAGE_NOT_FOUND;
      response.writeHead(refusal.code, { "Content-Type": "text/plain; charset=utf-8" });
      response.end(`${refusal.message}\n`);
    });
    server.on("upgrade", (request: IncomingMessage, socket, head: Buffer) => {
      socket.on("error", () => socket.destroy());
      options.handler.handleUpgrade(request, socket, head).catch((error: unknown) => {
        options.logger.error({ err: error }, "console upgrade failed");
        socket.destroy();
      });
    });
    const onError = (error: unknown) =>
      options.logger.error({ err: error }, "could not reload the console server's certificate");
    const clientCA = () => options.clientCA.current() ?? ca;
    this.stops.push(
      reloadOnChange(
        server,
        { certFile: options.certFile, keyFile: options.keyFile, clientCA },
        onError,
        options.reloadIntervalMs,
      ),
      options.clientCA.onChange((pem) => {
        try {
          const current = readServingTLS(options.certFile, options.keyFile);
          server.setSecureContext({ cert: current.certPem, key: current.keyPem, ca: pem });
        } catch (error) {
          onError(error);
        }
      }),
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.bindAddress, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    return typeof address === "object" && address ? address.port : options.port;
  }

  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // Upgraded connections are no longer the HTTP server's to close.
    this.options.handler.endAll();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

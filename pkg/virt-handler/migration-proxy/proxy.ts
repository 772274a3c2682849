// One listener of a migration proxy (upstream migrationProxy): the source side listens on a unix socket
// in the source launcher's pod and dials the target handler over TCP (TLS unless disabled); the target
// side listens on TCP and dials a unix socket in the target launcher's pod. Every accepted connection is
// spliced to a fresh outbound one; stop() closes the listener, its connections and its socket file.
// SRC launcher (unix) <-> SRC handler (TCP client) <--TLS--> TGT handler (TCP server) <-> TGT launcher (unix)
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { connect as netConnect, createServer as netServer, type Server, type Socket } from "node:net";
import {
  connect as tlsConnect,
  createServer as tlsServer,
  type ConnectionOptions,
  type TlsOptions,
  type TLSSocket,
} from "node:tls";
import type { Logger } from "../../controller/log.js";
import type { FileOwnership } from "../../ephemeral-disk/ownership.js";
import { splice } from "./splice.js";

export type ProxyListen =
  | { unixSocketPath: string; ownership?: FileOwnership }
  | {
      host: string;
      /** 0: any free port, read back with `port` once started. */
      port: number;
      tls?: TlsOptions;
      /** Why a peer that completed the TLS handshake is still refused (its certificate's name), if it is. */
      refuse?: (socket: TLSSocket) => string | undefined;
    };

export type ProxyTarget =
  | { unixSocketPath: string }
  | {
      host: string;
      port: number;
      /** Tried in order until one handshake succeeds (upstream: the migration certificate, then the older one). */
      tls?: readonly ConnectionOptions[];
    };

/** How a target is compared and logged: the socket path, or host:port as net.JoinHostPort writes it. */
export function targetAddress(target: ProxyTarget): string {
  if ("unixSocketPath" in target) return target.unixSocketPath;
  return target.host.includes(":") ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

// tls.connect hands allowHalfOpen on to its socket, though its option type leaves it out.
const HALF_OPEN: ConnectionOptions = { allowHalfOpen: true } as ConnectionOptions;

export class MigrationProxy {
  private server: Server | undefined;
  private boundPort = 0;
  private readonly connections = new Set<Socket>();
  private readonly handshaking = new Set<Socket>();
  private stopped = false;

  constructor(
    readonly listen: ProxyListen,
    readonly target: ProxyTarget,
    private readonly log: { uid: string; logger: Logger },
  ) {}

  /** The TCP port listened on (0 for a unix listener or before start). */
  get port(): number {
    return this.boundPort;
  }

  get unixSocketPath(): string | undefined {
    return "unixSocketPath" in this.listen ? this.listen.unixSocketPath : undefined;
  }

  get targetAddress(): string {
    return targetAddress(this.target);
  }

  get openConnections(): number {
    return this.connections.size;
  }

  async start(): Promise<void> {
    const { listen } = this;
    const server =
      "unixSocketPath" in listen ? await this.unixServer(listen.unixSocketPath) : this.tcpServer();
    this.server = server;
    server.on("error", (error) =>
      this.logger.error({ ...this.fields, err: error }, "proxy listener returned error"),
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      const listening = () => {
        server.off("error", reject);
        resolve();
      };
      if ("unixSocketPath" in listen) server.listen(listen.unixSocketPath, listening);
      else server.listen(listen.port, listen.host, listening);
    });
    const address = server.address();
    if (typeof address === "object" && address) this.boundPort = address.port;
    if ("unixSocketPath" in listen && listen.ownership) {
      try {
        await listen.ownership.setFileOwnership(listen.unixSocketPath);
      } catch (error) {
        this.logger.error(
          { ...this.fields, err: error },
          "failed to change ownership on migration unix socket",
        );
        await this.stop();
        throw error;
      }
    }
    this.logger.info({ ...this.fields, outbound: this.targetAddress }, "proxy started listening");
  }

  /** Closes the listener and every connection it accepted; a unix listener's socket file is removed. */
  async stop(): Promise<void> {
    this.stopped = true;
    const server = this.server;
    this.server = undefined;
    for (const socket of [...this.connections, ...this.handshaking]) socket.destroy();
    this.connections.clear();
    this.handshaking.clear();
    if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    const socketPath = this.unixSocketPath;
    if (socketPath !== undefined) await rm(socketPath, { force: true });
    if (server) this.logger.info(this.fields, "proxy stopped listening");
  }

  private async unixServer(socketPath: string): Promise<Server> {
    // A socket file left by an earlier listener would make listen() fail with EADDRINUSE.
    await rm(socketPath, { force: true });
    await mkdir(path.dirname(socketPath), { recursive: true, mode: 0o755 });
    const server = netServer({ allowHalfOpen: true, pauseOnConnect: true });
    server.on("connection", (socket: Socket) => this.accept(socket));
    return server;
  }

  private tcpServer(): Server {
    const listen = this.listen as Extract<ProxyListen, { host: string }>;
    if (!listen.tls) {
      const server = netServer({ allowHalfOpen: true, pauseOnConnect: true });
      server.on("connection", (socket: Socket) => this.accept(socket));
      return server;
    }
    const server = tlsServer({ ...listen.tls, allowHalfOpen: true });
    // Connections still in their handshake are not in `connections` yet; stop() must end them too.
    server.on("connection", (raw: Socket) => {
      this.handshaking.add(raw);
      raw.once("close", () => this.handshaking.delete(raw));
    });
    server.on("secureConnection", (socket: TLSSocket) => {
      const refused = listen.refuse?.(socket);
      if (refused !== undefined) {
        this.logger.error({ ...this.fields, reason: refused }, "refusing a migration proxy connection");
        socket.destroy();
        return;
      }
      socket.pause();
      this.accept(socket);
    });
    server.on("tlsClientError", (error) =>
      this.logger.error({ ...this.fields, err: error }, "migration proxy TLS handshake failed"),
    );
    return server;
  }

  private accept(inbound: Socket): void {
    if (this.stopped) {
      inbound.destroy();
      return;
    }
    this.connections.add(inbound);
    inbound.once("close", () => this.connections.delete(inbound));
    // Errors before the outbound leg exists end the inbound one; splice takes over after.
    const early = () => inbound.destroy();
    inbound.on("error", early);
    this.dial().then(
      (outbound) => {
        inbound.off("error", early);
        if (inbound.destroyed || this.stopped) {
          outbound.destroy();
          inbound.destroy();
          return;
        }
        this.connections.add(outbound);
        outbound.once("close", () => this.connections.delete(outbound));
        void splice(inbound, outbound).then(({ inboundToOutbound, outboundToInbound, error }) => {
          if (error) this.logger.error({ ...this.fields, err: error }, "error encountered copying data");
          this.logger.info(
            { ...this.fields, inboundToOutbound, outboundToInbound, outbound: this.targetAddress },
            "proxy connection closed",
          );
        });
        inbound.resume();
      },
      (error: unknown) => {
        this.logger.error(
          { ...this.fields, err: error, outbound: this.targetAddress },
          "unable to create outbound leg of proxy",
        );
        inbound.destroy();
      },
    );
  }

  private async dial(): Promise<Socket> {
    const { target } = this;
    if ("unixSocketPath" in target) {
      return connected(netConnect({ path: target.unixSocketPath, allowHalfOpen: true }), "connect");
    }
    if (!target.tls) {
      return connected(netConnect({ host: target.host, port: target.port, allowHalfOpen: true }), "connect");
    }
    let lastError: unknown = new Error("no client certificate to dial with");
    for (const [index, options] of target.tls.entries()) {
      try {
        const socket = tlsConnect({ ...options, host: target.host, port: target.port, ...HALF_OPEN });
        return await connected(socket, "secureConnect");
      } catch (error) {
        lastError = error;
        if (index + 1 < target.tls.length) {
          this.logger.info({ ...this.fields, err: error }, "fallback to old tls config");
        }
      }
    }
    throw lastError;
  }

  private get logger(): Logger {
    return this.log.logger;
  }

  /** What every line of this proxy's log names: the VMI, and where it listens. */
  private get fields(): { uid: string; listening: string } {
    return { uid: this.log.uid, listening: this.listeningOn() };
  }

  private listeningOn(): string {
    const { listen } = this;
    return "unixSocketPath" in listen
      ? path.basename(listen.unixSocketPath)
      : `${listen.host}:${this.boundPort}`;
  }
}

/** Resolves once `socket` emits `event`, rejects (and destroys it) on an earlier error. */
function connected<T extends Socket>(socket: T, event: "connect" | "secureConnect"): Promise<T> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once("error", onError);
    socket.once(event, () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

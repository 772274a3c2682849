import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { LogOptionsError, parseLogOptions, streamLog } from "./cri-log.js";
import type { Logger } from "./logger.js";
import { writeHttpError } from "./streaming/http-upgrade.js";
import { matchStreamingRoute, notUpgraded, type StreamingServer } from "./streaming/streaming-server.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

// The kubelet HTTPS endpoints the apiserver calls: /healthz, /containerLogs/<ns>/<pod>/<container>
// (what `kubectl logs` reaches through the apiserver) and the streaming endpoints behind `kubectl exec`,
// `attach` and `port-forward` (/exec, /attach, /portForward; see streaming/). TLS with a serving certificate signed by the
// cluster CA; clients must present a certificate signed by that CA (the apiserver's kubelet client cert).

export interface LogFile {
  path: string;
  isRunning(): boolean;
}

/** Thrown by a LogLocator or a container lookup; `status` is the HTTP status kubelet answers with. */
export class LogLookupError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface LogLocator {
  locate(namespace: string, pod: string, container: string, previous: boolean): LogFile;
}

export interface KubeletServerOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  clientCA: string;
  logs: LogLocator;
  /** exec, attach and port-forward; without it those paths answer 404. */
  streaming?: StreamingServer;
  log: Logger;
}

const LOGS_PATH = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)\/?$/;

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" });
  res.end(message);
}

async function serveLogs(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  match: RegExpExecArray,
  logs: LogLocator,
): Promise<void> {
  const [namespace, pod, container] = match.slice(1).map(decodeURIComponent) as [string, string, string];
  const options = parseLogOptions(url.searchParams);
  const file = logs.locate(namespace, pod, container, options.previous);
  const abort = new AbortController();
  req.on("close", () => abort.abort());
  res.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" });
  // Send the headers now, so a follow on a quiet container is not left hanging.
  res.flushHeaders();
  await streamLog(
    file.path,
    options,
    {
      write: (chunk) =>
        new Promise<void>((resolve) => {
          if (res.write(chunk)) resolve();
          else res.once("drain", () => resolve());
        }),
    },
    { isRunning: () => file.isRunning(), signal: abort.signal },
  );
  res.end();
}

export class KubeletServer {
  private server: https.Server | undefined;
  /** Upgraded connections (exec, port-forward) are no longer the HTTP server's to close. */
  private readonly upgraded = new Set<Duplex>();

  constructor(private readonly options: KubeletServerOptions) {}

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://kubelet");
    if (this.options.streaming && matchStreamingRoute(url.pathname)) {
      if (req.method !== "GET" && req.method !== "POST") return fail(res, 405, "method not allowed");
      const { status, message } = notUpgraded(req);
      return fail(res, status, message);
    }
    if (req.method !== "GET") return fail(res, 405, "method not allowed");
    if (url.pathname === "/healthz") {
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("ok");
      return;
    }
    const logsMatch = LOGS_PATH.exec(url.pathname);
    if (!logsMatch) return fail(res, 404, "404 page not found");
    try {
      await serveLogs(req, res, url, logsMatch, this.options.logs);
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof LogOptionsError) return fail(res, 400, err.message);
      if (err instanceof LogLookupError) return fail(res, err.status, err.message);
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return fail(res, 404, "log file not found");
      this.options.log.error({ err, path: url.pathname }, "containerLogs failed");
      return fail(res, 500, errorMessage(err));
    }
  }

  async start(): Promise<number> {
    const { cert, key, clientCA, host, port } = this.options;
    const server = https.createServer(
      { cert, key, ca: clientCA, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        void this.handle(req, res);
      },
    );
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgraded.add(socket);
      socket.once("close", () => this.upgraded.delete(socket));
      if (this.options.streaming?.handleUpgrade(req, socket, head)) return;
      writeHttpError(socket, 404, "404 page not found");
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// virt-controller's and virt-handler's HTTP endpoints on --port: /healthz reports whether the apiserver
// answers, /leader whether this replica leads, /metrics the component's metrics. HTTPS with the certificate
// the operator mounts when it is there (the probes use HTTPS), plain HTTP otherwise (tests, local runs).
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { Transport } from "../controller/rest.js";
import { METRICS_PATH, type MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { errorMessage } from "../util/error-message.js";

export interface HealthServerOptions {
  bindAddress: string;
  port: number;
  certFile: string;
  keyFile: string;
  transport: Transport;
  isLeader: () => boolean;
  /** The resourceVersion of the KubeVirt CR whose configuration is in force, "" for defaults. */
  configResourceVersion: () => string;
  /** Absent: no /metrics. */
  metrics?: MetricsEndpoint;
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

export class HealthServer {
  private server: http.Server | undefined;
  private apiserverVersion: unknown;

  constructor(private readonly options: HealthServerOptions) {}

  /** Starts listening; resolves with the bound port. */
  async start(): Promise<number> {
    const { certFile, keyFile } = this.options;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server =
      existsSync(certFile) && existsSync(keyFile)
        ? https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler)
        : http.createServer(handler);
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.bindAddress, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET") return send(res, 405, { error: "method not allowed" });
    if (path === "/healthz") return this.healthz(res);
    if (path === METRICS_PATH && this.options.metrics) return this.options.metrics.serve(res);
    if (path === "/leader") {
      return send(res, 200, { apiserver: { leader: this.options.isLeader() ? "true" : "false" } });
    }
    send(res, 404, { error: "not found" });
  }

  /** The apiserver's /version, fetched once and reused while it keeps answering. */
  private async healthz(res: http.ServerResponse): Promise<void> {
    const configVersion = this.options.configResourceVersion();
    try {
      this.apiserverVersion ??= await this.options.transport.request({ method: "GET", path: "/version" });
      send(res, 200, {
        apiserver: { connectivity: "ok", version: this.apiserverVersion },
        "config-resource-version": configVersion,
      });
    } catch (err) {
      this.apiserverVersion = undefined;
      send(res, 500, {
        apiserver: { connectivity: "failed", error: errorMessage(err) },
        "config-resource-version": configVersion,
      });
    }
  }
}

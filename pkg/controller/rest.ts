import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import type { KubeConfig } from "@kubernetes/client-node";
import { ApiError } from "./api-error.js";

// The raw HTTP layer under the typed client: JSON requests and line-delimited watch streams against the
// cluster in a KubeConfig. Authentication and TLS come from @kubernetes/client-node's KubeConfig; the
// requests themselves use node:http(s) so one code path serves plain calls and long-lived watches.

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface RestRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: QueryParams;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export interface StreamRequest {
  path: string;
  query?: QueryParams;
  signal?: AbortSignal;
}

/** One exchange with the apiserver as a transport's observer sees it. */
export interface ObservedRequest {
  method: string;
  /** The cluster's server as the kubeconfig spells it, e.g. `https://10.96.0.1:443`. */
  server: string;
  path: string;
  query?: QueryParams;
}

/**
 * Told about every exchange (upstream wraps client-go's round tripper and latency hook for its rest client
 * metrics): `responded` once the status line arrived, or with code "<error>" when none came; `completed` when
 * a plain request is over, with its duration. Streams (watches) are never `completed`, as in client-go.
 */
export interface TransportObserver {
  responded(request: ObservedRequest, code: string): void;
  completed(request: ObservedRequest, seconds: number): void;
}

export interface Transport {
  /** Resolves with the parsed JSON body of a 2xx answer; rejects with ApiError otherwise. */
  request(req: RestRequest): Promise<unknown>;
  /**
   * Calls onLine with each parsed JSON line of a streaming GET. Resolves when the server ends the stream
   * or the signal aborts it; rejects with ApiError when the server refuses it, or on a broken connection.
   */
  stream(req: StreamRequest, onLine: (value: unknown) => void): Promise<void>;
}

function buildUrl(server: string, path: string, query: QueryParams = {}): URL {
  const url = new URL(server.replace(/\/+$/, "") + path);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function readAll(res: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export class KubeConfigTransport implements Transport {
  // One agent for the life of the transport keeps connections (and TLS sessions) alive between calls.
  private agent: http.Agent | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly observer?: TransportObserver,
  ) {}

  private async open(
    method: string,
    path: string,
    query: QueryParams | undefined,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<{ req: http.ClientRequest; response: Promise<http.IncomingMessage> }> {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("kubeconfig has no current cluster");
    const options: https.RequestOptions = { method };
    // Re-applied per request: exec/token credentials may rotate while the agent stays the same.
    await this.kubeConfig.applyToHTTPSOptions(options);
    this.agent ??= options.agent instanceof http.Agent ? options.agent : undefined;
    const url = buildUrl(cluster.server, path, query);
    const send = url.protocol === "http:" ? http.request : https.request;
    const req = send(url, {
      ...options,
      agent: this.agent,
      headers: { ...(options.headers as Record<string, string> | undefined), ...headers },
      ...(signal ? { signal } : {}),
    });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.once("response", resolve);
      req.on("error", reject);
    });
    const observer = this.observer;
    if (observer) {
      const observed = { method, server: cluster.server, path, query };
      // Observing never fails the request, nor leaves a rejection unhandled.
      response
        .then(
          (res) => observer.responded(observed, String(res.statusCode ?? 0)),
          () => observer.responded(observed, "<error>"),
        )
        .catch(() => undefined);
    }
    return { req, response };
  }

  async request(r: RestRequest): Promise<unknown> {
    const observer = this.observer;
    if (!observer) return this.exchange(r);
    const started = performance.now();
    try {
      return await this.exchange(r);
    } finally {
      const server = this.kubeConfig.getCurrentCluster()?.server ?? "";
      observer.completed(
        { method: r.method, server, path: r.path, query: r.query },
        (performance.now() - started) / 1000,
      );
    }
  }

  private async exchange(r: RestRequest): Promise<unknown> {
    const payload = r.body === undefined ? undefined : JSON.stringify(r.body);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (payload !== undefined) {
      headers["Content-Type"] = r.contentType ?? "application/json";
      // Node does not chunk a DELETE body: without a length the apiserver never reads DeleteOptions.
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    const { req, response } = await this.open(r.method, r.path, r.query, headers, r.signal);
    req.end(payload);
    const res = await response;
    const body = parseBody(await readAll(res));
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) throw ApiError.fromResponse(code, body, `${r.method} ${r.path}`);
    return body;
  }

  async stream(r: StreamRequest, onLine: (value: unknown) => void): Promise<void> {
    const { req, response } = await this.open(
      "GET",
      r.path,
      r.query,
      { Accept: "application/json" },
      r.signal,
    );
    req.end();
    let res: http.IncomingMessage;
    try {
      res = await response;
    } catch (err) {
      if (r.signal?.aborted) return;
      throw err;
    }
    const code = res.statusCode ?? 0;
    if (code !== 200) throw ApiError.fromResponse(code, parseBody(await readAll(res)), `GET ${r.path}`);
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      lines.on("line", (line) => {
        if (line.trim() !== "") onLine(parseBody(line));
      });
      const fail = (err: unknown) => (r.signal?.aborted ? resolve() : reject(err));
      lines.once("close", () =>
        res.complete ? resolve() : fail(new Error("watch connection closed early")),
      );
      // readline re-emits its input's errors; both must be handled or an abort becomes an uncaught error.
      lines.on("error", fail);
      res.on("error", fail);
    });
  }
}

// The client for KubeVirt's aggregated API (subresources.kubevirt.io), authenticated and
// TLS-configured from the kubeconfig (certificates, tokens, exec/auth providers).
import http from "node:http";
import https from "node:https";
import WebSocket from "ws";
import type { ClientConfig } from "../clientconfig/clientconfig.js";
import { ApiError, apiErrorFrom, statusMessage } from "./errors.js";

export const SUBRESOURCE_GROUP = "subresources.kubevirt.io";
export const SUBRESOURCE_VERSION = "v1";
/** The WebSocket subprotocol of console and VNC streams. */
export const PLAIN_STREAM_PROTOCOL = "plain.kubevirt.io";

export type NamespacedResource = "virtualmachines" | "virtualmachineinstances";

export class SubresourceClient {
  constructor(private readonly config: ClientConfig) {}

  /**
   * The absolute path of a namespaced subresource (`vnc/screenshot` and `portforward/22/tcp` have more than
   * one segment), in the configured namespace unless `namespace` is given.
   */
  subresourcePath(
    resource: NamespacedResource,
    name: string,
    subresource: string,
    namespace = this.config.namespace,
  ): string {
    const segments = ["namespaces", namespace, resource, name, ...subresource.split("/")].map(
      encodeURIComponent,
    );
    return `/apis/${SUBRESOURCE_GROUP}/${SUBRESOURCE_VERSION}/${segments.join("/")}`;
  }

  /** The absolute path of a namespace-wide subresource resource, such as expand-vm-spec. */
  namespaceSubresourcePath(resource: string, namespace = this.config.namespace): string {
    const segments = ["namespaces", namespace, resource].map(encodeURIComponent);
    return `/apis/${SUBRESOURCE_GROUP}/${SUBRESOURCE_VERSION}/${segments.join("/")}`;
  }

  /** The absolute path of a namespaced kubevirt.io/v1 object. */
  objectPath(resource: NamespacedResource, name: string): string {
    const segments = ["namespaces", this.config.namespace, resource, name].map(encodeURIComponent);
    return `/apis/kubevirt.io/v1/${segments.join("/")}`;
  }

  /** The absolute path of a namespaced object of any API group (`v1` is the core group). */
  namespacedPath(groupVersion: string, resource: string, name?: string): string {
    const prefix = groupVersion === "v1" ? "/api/v1" : `/apis/${groupVersion}`;
    const segments = ["namespaces", this.config.namespace, resource, ...(name === undefined ? [] : [name])];
    return `${prefix}/${segments.map(encodeURIComponent).join("/")}`;
  }

  /** The namespace commands act in: the kubeconfig context's, or --namespace. */
  get namespace(): string {
    return this.config.namespace;
  }

  async post(path: string, body: unknown): Promise<unknown> {
    const text = await this.request("POST", path, JSON.stringify(body));
    return JSON.parse(text.toString("utf8")) as unknown;
  }

  async put(path: string, body: unknown): Promise<void> {
    await this.request("PUT", path, JSON.stringify(body));
  }

  /** A PUT whose answer is an object (expand-vm-spec's expanded VM). */
  async putJson(path: string, body: unknown): Promise<unknown> {
    const text = await this.request("PUT", path, JSON.stringify(body));
    return JSON.parse(text.toString("utf8")) as unknown;
  }

  async getJson(path: string, query?: URLSearchParams): Promise<unknown> {
    const text = await this.request("GET", path, undefined, query);
    return JSON.parse(text.toString("utf8")) as unknown;
  }

  /** A DELETE with its DeleteOptions as the body, as client-go sends them. */
  async delete(path: string, options: unknown): Promise<void> {
    await this.request("DELETE", path, JSON.stringify(options));
  }

  /** A GET whose answer is bytes (a screenshot), taken as they come. */
  getBytes(path: string, query?: URLSearchParams): Promise<Buffer> {
    return this.request("GET", path, undefined, query, "*/*");
  }

  /** Opens a stream subresource; rejects with an ApiError carrying the status when the upgrade is refused. */
  async dial(path: string, query?: URLSearchParams): Promise<WebSocket> {
    const url = this.url(path, query);
    url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
    const options: https.RequestOptions = {};
    await this.config.kubeConfig.applyToHTTPSOptions(options);
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, [PLAIN_STREAM_PROTOCOL], { ...options, headers: headersOf(options) });
      socket.once("open", () => resolve(socket));
      socket.once("unexpected-response", (_request, response) => {
        readBody(response).then(
          (body) => reject(upgradeRefused(response.statusCode ?? 0, body)),
          (error: unknown) => reject(error),
        );
      });
      socket.once("error", (error) => reject(new Error(`Can't connect to websocket: ${error.message}`)));
    });
  }

  private url(path: string, query?: URLSearchParams): URL {
    const url = new URL(this.config.server);
    url.pathname = url.pathname.replace(/\/$/, "") + path;
    if (query) url.search = query.toString();
    return url;
  }

  private async request(
    method: string,
    path: string,
    body?: string,
    query?: URLSearchParams,
    accept = "application/json",
  ): Promise<Buffer> {
    const url = this.url(path, query);
    const options: https.RequestOptions = { method, headers: { Accept: accept } };
    if (body !== undefined) {
      // Node sends a DELETE's body only with its length given.
      options.headers = {
        ...options.headers,
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body),
      };
    }
    await this.config.kubeConfig.applyToHTTPSOptions(options);
    const send = url.protocol === "http:" ? http.request : https.request;
    return new Promise((resolve, reject) => {
      const request = send(url, options, (response) => {
        readBytes(response).then((bytes) => {
          const code = response.statusCode ?? 0;
          if (code >= 200 && code < 300) resolve(bytes);
          else reject(apiErrorFrom(code, bytes.toString("utf8")));
        }, reject);
      });
      // client-go words transport failures as `Put "<url>": <cause>`
      const verb = method.charAt(0) + method.slice(1).toLowerCase();
      request.on("error", (error) => reject(new Error(`${verb} "${url.href}": ${error.message}`)));
      request.end(body);
    });
  }
}

function headersOf(options: https.RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (typeof value === "string" || typeof value === "number") headers[key] = String(value);
  }
  if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
  return headers;
}

function readBytes(response: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("end", () => resolve(Buffer.concat(chunks)));
    response.on("error", reject);
  });
}

const readBody = async (response: http.IncomingMessage): Promise<string> =>
  (await readBytes(response)).toString("utf8");

/** A refused upgrade: the Status message when the server sent one, else the code, as client-go words it. */
function upgradeRefused(statusCode: number, body: string): ApiError {
  const message = statusMessage(body);
  if (message) return new ApiError(statusCode, "", message);
  const detail = body.trim() ? `: application info: ${body.trim()}` : "";
  return new ApiError(
    statusCode,
    "",
    `Can't connect to websocket (${statusCode}): websocket: bad handshake${detail}`,
  );
}

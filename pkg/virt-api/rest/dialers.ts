// virt-api's way to a VMI's virt-handler (upstream pkg/virt-api/rest/dialers.go and client-go's
// kubecli/handler.go): the virt-handler pod on the VMI's node, found by label in virt-api's namespace, is
// dialed at its pod IP on the console server port over mutual TLS. virt-api presents its
// kubevirt.io:system:client:virt-handler certificate and accepts only a serving certificate that chains to
// the KubeVirt CA and is named kubevirt.io:system:node:virt-handler (no host name check: pods have none).
import { randomBytes } from "node:crypto";
import type { ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIPv6 } from "node:net";
import type { Duplex } from "node:stream";
import type { PeerCertificate } from "node:tls";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { commonNameOf, verifyCommonName, VIRT_HANDLER_TYPE } from "../../util/tls/tls.js";
import { errorMessage } from "../../util/error-message.js";
import { acceptKey, PLAIN_STREAM_PROTOCOL } from "./streamer.js";
import { badRequest, internalError, type Status } from "./status.js";

/** Upstream's `kubevirt.io in (virt-handler)`. */
export const VIRT_HANDLER_POD_SELECTOR = "kubevirt.io in (virt-handler)";

export interface HandlerPod {
  podIP?: string;
}

/** What virt-api trusts and presents towards virt-handler, read fresh for every connection. */
export interface HandlerTLS {
  caBundle: string;
  certPem: string;
  keyPem: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; status: Status };

const fail = (status: Status): { ok: false; status: Status } => ({ ok: false, status });

export function isRunning(vmi: VirtualMachineInstance): boolean {
  return vmi.status?.phase === "Running";
}

/** The handler URL of a VMI subresource, from the handler pods listed on the VMI's node. */
export function virtHandlerURL(
  vmi: VirtualMachineInstance,
  pods: readonly HandlerPod[],
  port: number,
  subresource: string,
  scheme: "wss" | "https" = "wss",
): Result<string> {
  const node = vmi.status?.nodeName ?? "";
  if (pods.length > 1) return fail(badRequest(`Expected to find one Pod, found ${pods.length} Pods`));
  const ip = pods[0]?.podIP;
  if (pods.length === 0) return fail(badRequest(`No virt-handler on node ${node} found`));
  if (!ip) return fail(badRequest(`virt-handler pod on node ${node} has no pod IP yet`));
  const host = isIPv6(ip) ? `[${ip}]` : ip;
  const namespace = encodeURIComponent(vmi.metadata?.namespace ?? "");
  const name = encodeURIComponent(vmi.metadata?.name ?? "");
  return {
    ok: true,
    value: `${scheme}://${host}:${port}/v1/namespaces/${namespace}/virtualmachineinstances/${name}/${subresource}`,
  };
}

/** Upstream refuses to look for a handler while the VMI is neither Running nor Scheduled. */
export function checkHandlerReachable(vmi: VirtualMachineInstance): Status | undefined {
  const phase = vmi.status?.phase ?? "";
  if (phase === "Running" || phase === "Scheduled") return undefined;
  return badRequest(
    `Unable to connect to VirtualMachineInstance because phase is ${phase} instead of Running or Scheduled`,
  );
}

/** Where virt-api finds virt-handlers and the certificates to reach them with. */
export interface HandlerBackend {
  /** The virt-handler pods on a node, in virt-api's namespace. */
  handlerPods(nodeName: string): Promise<HandlerPod[]>;
  handlerTLS(): Promise<HandlerTLS>;
}

/**
 * Upstream's getVirtHandlerFor: the URL of the VMI's subresource on its node's virt-handler and the TLS to
 * call it with, or why there is none (BadRequest for the handler lookup, as upstream).
 */
export async function virtHandlerFor(
  backend: HandlerBackend,
  vmi: VirtualMachineInstance,
  port: number,
  subresource: string,
  scheme: "wss" | "https",
): Promise<Result<{ url: string; tls: HandlerTLS }>> {
  const unreachable = checkHandlerReachable(vmi);
  if (unreachable) return fail(unreachable);
  let pods: HandlerPod[];
  try {
    pods = await backend.handlerPods(vmi.status?.nodeName ?? "");
  } catch (error) {
    return fail(badRequest(errorMessage(error)));
  }
  const url = virtHandlerURL(vmi, pods, port, subresource, scheme);
  if (!url.ok) return url;
  try {
    return { ok: true, value: { url: url.value, tls: await backend.handlerTLS() } };
  } catch (error) {
    return fail(internalError(errorMessage(error)));
  }
}

export interface HandlerConnection {
  socket: Duplex;
  /** Bytes the handler sent right after its handshake. */
  head: Buffer;
}

/** Go's wording for the usual dial failures, so the Status reads as upstream's does. */
export function dialErrorMessage(address: string, error: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ECONNREFUSED: "connect: connection refused",
    EHOSTUNREACH: "connect: no route to host",
    ENETUNREACH: "connect: network is unreachable",
    ETIMEDOUT: "i/o timeout",
    ECONNRESET: "read: connection reset by peer",
  };
  const cause = error.code ? words[error.code] : undefined;
  if (cause) return `dial tcp ${address}: ${cause}`;
  // A certificate that does not chain to the KubeVirt CA, worded as upstream's peer verification.
  if (error.code && /CERT|VERIFY|SIGNATURE|ISSUER/.test(error.code))
    return `could not verify peer certificate: ${error.message}`;
  return error.message;
}

/** client-go's EnrichError: the refused handshake's code and, when it is text, the handler's reason. */
function refusedHandshake(code: number, contentType: string, body: string): Status {
  const base = `Can't connect to websocket (${code}): websocket: bad handshake`;
  if (contentType.includes("application/json")) {
    try {
      const status = JSON.parse(body) as { kind?: string; status?: string; message?: string };
      if (status.kind === "Status" && status.status !== "Success")
        return internalError(status.message ?? base);
    } catch {
      // not a Status after all: report the handshake itself
    }
  }
  const text = body.trim();
  if (contentType.includes("text/plain") && text) return internalError(`${base}: application info: ${text}`);
  return internalError(base);
}

/** The TLS options of every request to virt-handler: mutual TLS, the peer checked by its role's name. */
function handlerTLSOptions(tls: HandlerTLS) {
  return {
    ca: tls.caBundle,
    cert: tls.certPem,
    key: tls.keyPem,
    rejectUnauthorized: true,
    minVersion: "TLSv1.2" as const,
    // The chain is verified against the CA; the name checked is the certificate's role, not a host name.
    checkServerIdentity: (_host: string, certificate: PeerCertificate) => {
      const refused = verifyCommonName(commonNameOf(certificate), "node", [VIRT_HANDLER_TYPE]);
      return refused ? new Error(`could not verify peer certificate: ${refused}`) : undefined;
    },
    agent: false as const,
  };
}

/** A 2xx answer's body, bytes as sent (a screenshot is binary), and its Content-Type. */
type Exchange = { ok: true; body: Buffer; contentType: string } | { ok: false; message: string };

/**
 * A plain request to a handler endpoint (client-go's virtHandlerConn.doRequest): the body of a 2xx answer;
 * any other answer is an error worded as upstream's; the deadline ends a handler that never answers.
 */
function exchangeVirtHandler(
  url: string,
  tls: HandlerTLS,
  method: "GET" | "PUT",
  headers: Record<string, string | number>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Exchange> {
  return requestVirtHandler<Exchange>(
    url,
    tls,
    method,
    headers,
    timeoutMs,
    body,
    (request, settle, address) => {
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const code = response.statusCode ?? 0;
          const body = Buffer.concat(chunks);
          if (code >= 200 && code <= 299)
            return settle({ ok: true, body, contentType: response.headers["content-type"] ?? "" });
          const text = body.toString("utf8");
          const status = `${code} ${response.statusMessage ?? ""}`.trim();
          settle({ ok: false, message: `unexpected return code ${code} (${status}), message: ${text}` });
        });
        response.on("error", (error: NodeJS.ErrnoException) =>
          settle({ ok: false, message: dialErrorMessage(address, error) }),
        );
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        settle({ ok: false, message: dialErrorMessage(address, error) });
      });
    },
  );
}

/** A PUT to a handler endpoint (client-go's virtHandlerConn.Put). */
export async function putVirtHandler(
  url: string,
  tls: HandlerTLS,
  body: string,
  timeoutMs = 10_000,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) };
  const answer = await exchangeVirtHandler(url, tls, "PUT", headers, body, timeoutMs);
  return answer.ok ? { ok: true } : answer;
}

/** A GET of a handler endpoint (client-go's virtHandlerConn.Get): the answer's body; "" sends no Accept. */
export function getVirtHandler(
  url: string,
  tls: HandlerTLS,
  accept = "application/json",
  timeoutMs = 10_000,
): Promise<Exchange> {
  const headers: Record<string, string> = accept === "" ? {} : { Accept: accept };
  return exchangeVirtHandler(url, tls, "GET", headers, undefined, timeoutMs);
}

/**
 * One request to a handler over mutual TLS whose answer settles once; `wire` attaches the listeners that
 * settle it, and the deadline destroys a request the handler never answers (its error then settles).
 */
function requestVirtHandler<T>(
  url: string,
  tls: HandlerTLS,
  method: "GET" | "PUT",
  headers: Record<string, string | number>,
  timeoutMs: number,
  body: string | undefined,
  wire: (request: ClientRequest, settle: (result: T) => void, address: string) => void,
): Promise<T> {
  const target = new URL(url);
  const address = `${target.hostname}:${target.port}`;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = httpsRequest({
      host: target.hostname.replace(/^\[|\]$/g, ""),
      port: Number(target.port),
      path: `${target.pathname}${target.search}`,
      method,
      ...handlerTLSOptions(tls),
      headers,
    });
    const timer = setTimeout(() => {
      request.destroy(Object.assign(new Error("i/o timeout"), { code: "ETIMEDOUT" }));
    }, timeoutMs);
    wire(request, settle, address);
    request.end(body);
  });
}

/** Opens the handler's WebSocket over mutual TLS; the raw connection once the handshake has succeeded. */
export function dialVirtHandler(
  url: string,
  tls: HandlerTLS,
  timeoutMs = 10_000,
): Promise<Result<HandlerConnection>> {
  const key = randomBytes(16).toString("base64");
  const headers = {
    Connection: "Upgrade",
    Upgrade: "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": key,
    "Sec-WebSocket-Protocol": PLAIN_STREAM_PROTOCOL,
  };
  return requestVirtHandler<Result<HandlerConnection>>(
    url,
    tls,
    "GET",
    headers,
    timeoutMs,
    undefined,
    (request, settle, address) => {
      request.on("upgrade", (response, socket, head) => {
        if (response.headers["sec-websocket-accept"] !== acceptKey(key)) {
          socket.destroy();
          settle(fail(internalError("websocket: bad handshake")));
          return;
        }
        settle({ ok: true, value: { socket, head } });
      });
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          settle(
            fail(refusedHandshake(response.statusCode ?? 0, response.headers["content-type"] ?? "", body)),
          );
        });
        response.on("error", () => settle(fail(refusedHandshake(response.statusCode ?? 0, "", ""))));
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        settle(fail(internalError(dialErrorMessage(address, error))));
      });
    },
  );
}

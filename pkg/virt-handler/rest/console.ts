// virt-handler's serial console and VNC endpoints (upstream pkg/virt-handler/rest/console.go SerialHandler
// and VNCHandler): virt-api upgrades `GET /v1/namespaces/{namespace}/virtualmachineinstances/{name}/console`
// (or `/vnc`) to a WebSocket, and the bytes of its binary messages go to the VMI's serial (or VNC) socket in
// the launcher pod and back. One session per VMI and stream: a new connection ends the one before it, as
// upstream does, unless a VNC client asks to preserve the session, which is then refused.
import type { IncomingMessage } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/index.js";
import { UID_PATTERN, activePodUID, openPodFile } from "../launcher-clients.js";
import type { SafePath } from "../../safepath/no-follow.js";
import { parseGoBool } from "../../util/flags.js";
import { decodePathSegment } from "../../util/path-segment.js";

/** The WebSocket subprotocol of console streams. */
export const PLAIN_STREAM_PROTOCOL = "plain.kubevirt.io";
export const SERIAL_SOCKET_NAME = "virt-serial0";
export const VNC_SOCKET_NAME = "virt-vnc";
export const VNC_IN_USE = "Active VNC connection. Request denied.";
/** The launcher's /var/run/kubevirt-private is the pod's emptyDir `private`. */
export const PRIVATE_VOLUME_IN_POD_DIR = "volumes/kubernetes.io~empty-dir/private";

export interface ConsoleTarget {
  namespace: string;
  name: string;
}

export type StreamKind = "console" | "vnc";

/** A stream endpoint a request names; `preserveSession` is VNC's query parameter. */
export interface StreamTarget extends ConsoleTarget {
  kind: StreamKind;
  preserveSession: boolean;
}

/** The launcher's socket of each stream, and how upstream names it when it is missing. */
const STREAMS: Record<StreamKind, { socket: string; what: string }> = {
  console: { socket: SERIAL_SOCKET_NAME, what: "serial console" },
  vnc: { socket: VNC_SOCKET_NAME, what: "VNC console" },
};

/** An HTTP refusal as upstream's REST framework writes it: a status and a plain-text message. */
export interface Refusal {
  code: number;
  message: string;
}

export const PAGE_NOT_FOUND: Refusal = { code: 404, message: "404: Page Not Found" };
export const METHOD_NOT_ALLOWED: Refusal = { code: 405, message: "405: Method Not Allowed" };
export const NOT_A_WEBSOCKET: Refusal = {
  code: 400,
  message:
    "websocket: the client is not using the websocket protocol: 'upgrade' token not found in 'Connection' header",
};

/** The VMI a request URL names, or undefined when the URL is not the console route. */
export function parseConsolePath(url: string): ConsoleTarget | undefined {
  const target = parseStreamPath(url);
  return target?.kind === "console" ? { namespace: target.namespace, name: target.name } : undefined;
}

/** The stream endpoint a request URL names, or undefined when it is none. */
export function parseStreamPath(url: string): StreamTarget | undefined {
  const [path = "", query = ""] = url.split("?", 2);
  const match = /^\/v1\/namespaces\/([^/]+)\/virtualmachineinstances\/([^/]+)\/(console|vnc)$/.exec(path);
  if (!match) return undefined;
  const namespace = decodePathSegment(match[1] ?? "");
  const name = decodePathSegment(match[2] ?? "");
  if (namespace === undefined || name === undefined) return undefined;
  // Upstream parses the flag with strconv.ParseBool and takes anything else as false.
  const preserveSession = parseGoBool(new URLSearchParams(query).get("preserveSession") ?? "") === true;
  return { namespace, name, kind: match[3] as StreamKind, preserveSession };
}

export interface ConsoleHandlerOptions {
  /** The node this handler runs on. */
  host: string;
  /** The kubelet pods dir as this process sees it. */
  podsDir: string;
  /** The VMI from the handler's informer cache (this node's VMIs only), by `namespace/name`. */
  getVMI(key: string): VirtualMachineInstance | undefined;
  logger: Logger;
}

type Located = { vmi: VirtualMachineInstance; socket: SafePath } | { refused: Refusal };

export class ConsoleHandler {
  /** The open session of each VMI's stream, by `<kind>/<VMI UID>`. */
  private readonly sessions = new Map<string, { end(): void }>();
  private readonly upgrader = new WebSocketServer({
    noServer: true,
    // Upstream's upgrader offers only the plain stream protocol and answers without one otherwise.
    handleProtocols: (offered) => (offered.has(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : false),
  });

  constructor(private readonly options: ConsoleHandlerOptions) {}

  /** Finds the VMI and opens its serial socket without following any symlink in the pod's directory. */
  locateSerialSocket(target: ConsoleTarget): Promise<Located> {
    return this.locateSocket(target, "console");
  }

  /** Finds the VMI and opens the socket of `kind` without following any symlink in the pod's directory. */
  async locateSocket(target: ConsoleTarget, kind: StreamKind): Promise<Located> {
    const key = `${target.namespace}/${target.name}`;
    const vmi = this.options.getVMI(key);
    if (!vmi) return { refused: { code: 404, message: `VMI ${key} does not exist` } };
    const vmiUID = vmi.metadata?.uid ?? "";
    const podUID = await activePodUID(vmi, this.options.host, this.options.podsDir);
    if (!podUID) return { refused: { code: 400, message: `No command socket found for vmi ${vmiUID}` } };
    const stream = STREAMS[kind];
    const socket = UID_PATTERN.test(vmiUID)
      ? await openPodFile(
          this.options.podsDir,
          podUID,
          `${PRIVATE_VOLUME_IN_POD_DIR}/${vmiUID}/${stream.socket}`,
        )
      : undefined;
    if (!socket) {
      return {
        refused: { code: 400, message: `Failed finding unix socket for ${stream.what} of vmi ${vmiUID}` },
      };
    }
    return { vmi, socket };
  }

  /** Serves an `upgrade` event of the console server. */
  async handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const target = parseStreamPath(request.url ?? "");
    if (!target) return refuse(socket, PAGE_NOT_FOUND);
    if (request.method !== "GET") return refuse(socket, METHOD_NOT_ALLOWED);
    const vmi = this.options.getVMI(`${target.namespace}/${target.name}`);
    const sessionKey = `${target.kind}/${vmi?.metadata?.uid ?? ""}`;
    if (vmi && target.kind === "vnc" && target.preserveSession && this.sessions.has(sessionKey)) {
      this.options.logger.error({ ...target }, "Already has an active connection. Preserve it.");
      return refuse(socket, { code: 503, message: VNC_IN_USE });
    }
    const located = await this.locateSocket(target, target.kind);
    if ("refused" in located) {
      this.options.logger.error({ ...target, reason: located.refused.message }, "Failed to retrieve VMI");
      return refuse(socket, located.refused);
    }
    const uid = located.vmi.metadata?.uid ?? "";
    const socketPath = closeOnce(located.socket);
    // A handshake the upgrader refuses destroys the socket without calling back.
    socket.once("close", socketPath.close);
    this.upgrader.handleUpgrade(request, socket, head, (client) => {
      this.options.logger.info(
        { namespace: target.namespace, name: target.name, uid },
        "Websocket connection upgraded",
      );
      this.stream(`${target.kind}/${uid}`, client, socketPath, STREAMS[target.kind].what);
    });
  }

  /** Ends every open session (the server is shutting down). */
  endAll(): void {
    for (const session of [...this.sessions.values()]) session.end();
  }

  /** Pipes the WebSocket to the launcher's socket; ends the previous session of the same stream first. */
  private stream(key: string, client: WebSocket, serialPath: SafePath, what: string): void {
    this.sessions.get(key)?.end();
    const serial = net.connect(serialPath.procPath);
    const closeBoth = (code: number, reason: string) => {
      serial.destroy();
      if (client.readyState === client.OPEN) client.close(code, reason);
      else client.terminate();
    };
    const session = { end: () => closeBoth(1000, "another console connection took over") };
    this.sessions.set(key, session);
    serial.once("connect", () => void serialPath.close());
    serial.on("error", (error) => {
      void serialPath.close();
      this.options.logger.error({ err: error, key }, "error encountered reading from unix socket");
      closeBoth(1011, `failed to reach the ${what}`);
    });
    serial.on("data", (chunk: Buffer) => {
      client.send(chunk, { binary: true });
      // A slow client: stop reading the guest until the WebSocket's buffer drains.
      if (client.bufferedAmount > 1 << 20) {
        serial.pause();
        waitForDrain(client, () => serial.resume());
      }
    });
    serial.on("end", () => closeBoth(1000, ""));
    client.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return; // upstream's reader skips anything but binary messages
      if (!serial.write(data)) {
        client.pause();
        serial.once("drain", () => client.resume());
      }
    });
    client.on("close", () => {
      serial.destroy();
      if (this.sessions.get(key) === session) this.sessions.delete(key);
    });
    client.on("error", () => serial.destroy());
  }
}

function closeOnce(path: SafePath): SafePath & { close(): Promise<void> } {
  let closed: Promise<void> | undefined;
  return {
    procPath: path.procPath,
    close: () => (closed ??= path.close().catch(() => undefined)),
  };
}

function waitForDrain(client: WebSocket, resume: () => void): void {
  const check = () => {
    if (client.readyState !== client.OPEN || client.bufferedAmount <= 1 << 16) resume();
    else setTimeout(check, 10);
  };
  setTimeout(check, 10);
}

/** Writes a plain-text HTTP error on a socket that was never upgraded, then closes it. */
export function refuse(socket: Duplex, refusal: Refusal): void {
  const body = `${refusal.message}\n`;
  socket.end(
    `HTTP/1.1 ${refusal.code} ${statusText(refusal.code)}\r\n` +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  500: "Internal Server Error",
  503: "Service Unavailable",
};
const statusText = (code: number): string => STATUS_TEXT[code] ?? "Error";

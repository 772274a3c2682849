import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ExecStreams } from "../pod-runtime.js";
import { openSpdyCommandSession, openWebSocketCommandSession } from "./command-session.js";
import type { CommandSession } from "./command-session.js";
import { UpgradeError, isWebSocketRequest, writeHttpError } from "./http-upgrade.js";
import { serveSpdyPortForward, serveWebSocketPortForward, websocketPorts } from "./port-forward.js";
import type { PortForwardTarget } from "./port-forward.js";
import {
  HEADER_PROTOCOL_VERSION,
  StreamOptionsError,
  internalErrorStatus,
  nonZeroExitStatus,
  parseStreamOptions,
  successStatus,
} from "./protocol.js";
import type { Status } from "./protocol.js";
import { errorMessage } from "../../../../pkg/util/error-message.js";

// kubelet's streaming endpoints as the apiserver reaches them (pkg/kubelet/server/server.go):
// /exec/{ns}/{pod}[/{uid}]/{container}, /attach/... and /portForward/{ns}/{pod}[/{uid}], GET or POST,
// upgraded to SPDY/3.1 or a WebSocket; exec and attach end with a status on the error stream
// (remotecommand.ServeExec / ServeAttach).

/** A lookup failure with the HTTP status kubelet answers (404 "pod does not exist", ...). */
export interface StatusCarrier {
  status: number;
  message: string;
}

export interface ContainerStreamTarget {
  exec(command: string[], io: ExecStreams): Promise<number>;
  attach(io: ExecStreams): Promise<void>;
}

export interface StreamingHost {
  /** Throws an error with `status` when the pod or container is not there. */
  container(namespace: string, pod: string, container: string): ContainerStreamTarget;
  pod(namespace: string, pod: string): PortForwardTarget;
}

type Route =
  | { kind: "exec" | "attach"; namespace: string; pod: string; container: string }
  | { kind: "portForward"; namespace: string; pod: string };

const COMMAND_PATH = /^\/(exec|attach)\/([^/]+)\/([^/]+)\/(?:[^/]+\/)?([^/]+)\/?$/;
const PORT_FORWARD_PATH = /^\/portForward\/([^/]+)\/([^/]+)(?:\/[^/]+)?\/?$/;

export function matchStreamingRoute(pathname: string): Route | undefined {
  const command = COMMAND_PATH.exec(pathname);
  if (command) {
    const [kind, namespace, pod, container] = command.slice(1).map(decodeURIComponent) as [
      string,
      string,
      string,
      string,
    ];
    return { kind: kind as "exec" | "attach", namespace, pod, container };
  }
  const forward = PORT_FORWARD_PATH.exec(pathname);
  if (forward) {
    const [namespace, pod] = forward.slice(1).map(decodeURIComponent) as [string, string];
    return { kind: "portForward", namespace, pod };
  }
  return undefined;
}

/** The answer to a streaming path reached without an upgrade (what the handshake or upgrader says). */
export function notUpgraded(req: IncomingMessage): { status: number; message: string } {
  if (req.headers[HEADER_PROTOCOL_VERSION.toLowerCase()] === undefined) {
    return { status: 400, message: `unable to upgrade: ${HEADER_PROTOCOL_VERSION} is required` };
  }
  return { status: 400, message: "unable to upgrade: missing upgrade headers in request" };
}

function statusOf(error: unknown): StatusCarrier | undefined {
  if (error instanceof UpgradeError) return { status: error.status, message: error.message };
  if (error instanceof StreamOptionsError) return { status: 400, message: error.message };
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number") return { status, message: (error as Error).message };
  return undefined;
}

export interface StreamingLog {
  error(fields: object, message: string): void;
}

export class StreamingServer {
  constructor(
    private readonly host: StreamingHost,
    private readonly log: StreamingLog,
  ) {}

  /** Serves an upgrade request on a streaming path; false when the path is not one. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? "/", "https://kubelet");
    const route = matchStreamingRoute(url.pathname);
    if (!route) return false;
    socket.on("error", () => undefined);
    if (req.method !== "GET" && req.method !== "POST") {
      writeHttpError(socket, 405, "method not allowed");
      return true;
    }
    void this.serve(route, url, req, socket, head).catch((error: unknown) => {
      const known = statusOf(error);
      if (known && socket.writable && !socket.destroyed) {
        writeHttpError(
          socket,
          known.status,
          known.message,
          error instanceof UpgradeError ? error.headers : {},
        );
        return;
      }
      this.log.error({ err: error, path: url.pathname }, "streaming request failed");
      if (!socket.destroyed) socket.destroy();
    });
    return true;
  }

  private async serve(
    route: Route,
    url: URL,
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    const websocket = isWebSocketRequest(req);
    if (route.kind === "portForward") {
      const target = this.host.pod(route.namespace, route.pod);
      if (websocket)
        await serveWebSocketPortForward(req, socket, head, websocketPorts(url.searchParams), target);
      else serveSpdyPortForward(req, socket, head, target);
      return;
    }
    const options = parseStreamOptions(url.searchParams);
    const target = this.host.container(route.namespace, route.pod, route.container);
    const session = websocket
      ? await openWebSocketCommandSession(req, socket, head, options)
      : await openSpdyCommandSession(req, socket, head, options);
    const command = url.searchParams.getAll("command");
    await session.finish(await this.run(route.kind, target, command, session, options.tty));
  }

  private async run(
    kind: "exec" | "attach",
    target: ContainerStreamTarget,
    command: string[],
    session: CommandSession,
    tty: boolean,
  ): Promise<Status> {
    const io: ExecStreams = {
      tty,
      signal: session.gone,
      ...(session.stdin ? { stdin: session.stdin } : {}),
      ...(session.stdout ? { stdout: session.stdout } : {}),
      ...(session.stderr ? { stderr: session.stderr } : {}),
      ...(session.resizes ? { resizes: session.resizes } : {}),
    };
    try {
      if (kind === "attach") {
        await target.attach(io);
        return successStatus();
      }
      const exitCode = await target.exec(command, io);
      return exitCode === 0 ? successStatus() : nonZeroExitStatus(command, exitCode);
    } catch (error) {
      const message = errorMessage(error);
      const what =
        kind === "attach" ? "error attaching to container" : "error executing command in container";
      return internalErrorStatus(`${what}: ${message}`);
    }
  }
}

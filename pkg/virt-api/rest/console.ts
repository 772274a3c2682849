// The serial console subresource (upstream pkg/virt-api/rest/console.go), and the raw stream proxy it shares
// with vnc (vnc.ts): a WebSocket upgrade of GET .../virtualmachineinstances/{name}/console. The VMI is
// fetched and checked, the virt-handler on its node is dialed over mutual TLS, and only then is the
// client's handshake answered and the two connections spliced; every refusal before that is a Status.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { dialVirtHandler, isRunning, virtHandlerFor, type HandlerBackend } from "./dialers.js";
import { badRequest, conflict, virtualMachineInstanceResource, type Status } from "./status.js";
import { fetchVMI } from "./subresource-app.js";
import { acceptClientHandshake, clientHandshakeError, splice, writeStatus } from "./streamer.js";
import { parseStreamRoute } from "./stream-route.js";

export const VMI_NOT_RUNNING = "VMI is not running";
export const NO_SERIAL_CONSOLE = "No serial consoles are present.";

/** What the console needs from the cluster and the files; `getVMI` undefined means NotFound. */
export interface ConsoleBackend extends HandlerBackend {
  getVMI(namespace: string, name: string): Promise<VirtualMachineInstance | undefined>;
}

export interface ConsoleProxyOptions {
  /** virt-handler's --console-server-port. */
  consoleServerPort: number;
  dialTimeoutMs?: number;
  logError?: (message: string, error?: unknown) => void;
}

export function validateVMIForConsole(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.spec.domain.devices.autoattachSerialConsole === false) return badRequest(NO_SERIAL_CONSOLE);
  if (vmi.status?.phase === "Failed")
    return conflict(virtualMachineInstanceResource, vmi.metadata?.name ?? "", "VMI is in failed status");
  if (!isRunning(vmi)) return badRequest(VMI_NOT_RUNNING);
  return undefined;
}

/** A stream virt-handler serves for a VMI: what the VMI must be, and the handler's path after the VMI. */
export interface HandlerStream {
  validate(vmi: VirtualMachineInstance): Status | undefined;
  /** e.g. "console", or "vnc?preserveSession=false". */
  handlerPath: string;
}

export const CONSOLE_STREAM: HandlerStream = { validate: validateVMIForConsole, handlerPath: "console" };

export class ConsoleProxy {
  constructor(
    private readonly backend: ConsoleBackend,
    private readonly options: ConsoleProxyOptions,
  ) {}

  /** Serves an authorized upgrade request for `namespace/name`'s console (or `stream`) on its raw socket. */
  async handle(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    namespace: string,
    name: string,
    stream: HandlerStream = CONSOLE_STREAM,
  ) {
    // Checked before virt-handler is dialed, so a bad request cannot end someone's open session there.
    const notWebSocket = clientHandshakeError(request);
    if (notWebSocket) return writeStatus(socket, badRequest(notWebSocket));
    const handler = await this.dialHandler(namespace, name, stream);
    if (!handler.ok) return writeStatus(socket, handler.status);
    if (socket.destroyed) {
      handler.value.socket.destroy();
      return;
    }
    acceptClientHandshake(request, socket);
    await splice(socket, head, handler.value.socket, handler.value.head);
  }

  private async dialHandler(namespace: string, name: string, stream: HandlerStream) {
    const vmi = await fetchVMI(this.backend, namespace, name);
    if ("code" in vmi) return { ok: false as const, status: vmi };
    const invalid = stream.validate(vmi);
    if (invalid) return { ok: false as const, status: invalid };
    const handler = await virtHandlerFor(
      this.backend,
      vmi,
      this.options.consoleServerPort,
      stream.handlerPath,
      "wss",
    );
    if (!handler.ok) {
      this.options.logError?.("Unable to establish connection to virt-handler", handler.status.message);
      return handler;
    }
    return dialVirtHandler(handler.value.url, handler.value.tls, this.options.dialTimeoutMs);
  }
}

export interface ConsoleRoute {
  version: string;
  namespace: string;
  name: string;
}

/** `/apis/subresources.kubevirt.io/{version}/namespaces/{ns}/virtualmachineinstances/{name}/console`. */
export function parseConsoleRoute(url: string, versions: readonly string[]): ConsoleRoute | undefined {
  const route = parseStreamRoute(url, versions);
  if (route?.subresource !== "console") return undefined;
  return { version: route.version, namespace: route.namespace, name: route.name };
}

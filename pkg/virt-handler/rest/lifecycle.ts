// virt-handler's pause and unpause endpoints (upstream pkg/virt-handler/rest/lifecycle.go PauseHandler and
// UnpauseHandler): virt-api PUTs `/v1/namespaces/{ns}/virtualmachineinstances/{name}/pause|unpause` over
// the console server's mutual TLS; the VMI comes from this node's informer cache and its launcher is
// told to suspend or resume the domain. 202 Accepted on success, an event records it.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/index.js";
import { errorMessage } from "../../util/error-message.js";
import { vmiLauncher } from "./vmi-launcher.js";
import { decodePathSegment } from "../../util/path-segment.js";
import type { LauncherCommands } from "../launcher-clients.js";
import { METHOD_NOT_ALLOWED, type Refusal } from "./console.js";

export type LifecycleCommand = "pause" | "unpause";

export interface LifecycleTarget {
  namespace: string;
  name: string;
  command: LifecycleCommand;
}

/** The endpoint a request URL names, or undefined when it is none of these. */
export function parseLifecyclePath(url: string): LifecycleTarget | undefined {
  const path = url.split("?", 1)[0] ?? "";
  const match = /^\/v1\/namespaces\/([^/]+)\/virtualmachineinstances\/([^/]+)\/(pause|unpause)$/.exec(path);
  if (!match) return undefined;
  const namespace = decodePathSegment(match[1] ?? "");
  const name = decodePathSegment(match[2] ?? "");
  if (namespace === undefined || name === undefined) return undefined;
  return { namespace, name, command: match[3] as LifecycleCommand };
}

export interface LifecycleHandlerOptions {
  /** The VMI from the handler's informer cache (this node's VMIs only), by `namespace/name`. */
  getVMI(key: string): VirtualMachineInstance | undefined;
  /** The VMI's launcher on this node; undefined when it has no command socket here. */
  launcher(
    vmi: VirtualMachineInstance,
  ): Promise<Pick<LauncherCommands, "pauseVirtualMachine" | "unpauseVirtualMachine"> | undefined>;
  /** Upstream's recorder: reason and message of a Normal event on the VMI. */
  recordEvent?(vmi: VirtualMachineInstance, reason: string, message: string): void;
  logger: Logger;
}

const EVENTS: Record<LifecycleCommand, { reason: string; message: string; failed: string }> = {
  pause: { reason: "Paused", message: "VirtualMachineInstance paused", failed: "Failed to pause VMI" },
  unpause: {
    reason: "Unpaused",
    message: "VirtualMachineInstance unpaused",
    failed: "Failed to unpause VMI",
  },
};

export class LifecycleHandler {
  constructor(private readonly options: LifecycleHandlerOptions) {}

  /** The answer to a request for `target`: a code and, on failure, a plain-text message. */
  async serve(method: string, target: LifecycleTarget): Promise<Refusal | { code: 202 }> {
    if (method !== "PUT") return METHOD_NOT_ALLOWED;
    const found = await vmiLauncher(this.options, target);
    if ("refused" in found) return found.refused;
    const { vmi, launcher } = found;
    const events = EVENTS[target.command];
    try {
      if (target.command === "pause") await launcher.pauseVirtualMachine(vmi);
      else await launcher.unpauseVirtualMachine(vmi);
    } catch (error) {
      this.options.logger.error({ ...target, err: error }, events.failed);
      return { code: 500, message: errorMessage(error) };
    }
    this.options.recordEvent?.(vmi, events.reason, events.message);
    return { code: 202 };
  }

  /** Serves a plain HTTP request of the console server when it is one of these endpoints; false otherwise. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    const target = parseLifecyclePath(request.url ?? "");
    if (!target) return false;
    // The body (the options virt-api was sent) carries nothing the handler needs.
    request.resume();
    void this.serve(request.method ?? "", target).then((answer) => {
      if (!("message" in answer)) {
        response.writeHead(answer.code).end();
        return;
      }
      response.writeHead(answer.code, { "Content-Type": "text/plain; charset=utf-8" });
      response.end(answer.message);
    });
    return true;
  }
}

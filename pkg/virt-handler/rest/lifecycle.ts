// virt-handler's lifecycle endpoints (upstream pkg/virt-handler/rest/lifecycle.go): virt-api PUTs
// `/v1/namespaces/{ns}/virtualmachineinstances/{name}/{pause|unpause|freeze|unfreeze|softreboot|reset}` over
// the console server's mutual TLS; the VMI comes from this node's informer cache and its launcher is told
// to act on the domain. 202 Accepted on success; the failure codes and events are upstream's per command.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { errorMessage } from "../../util/error-message.js";
import { parseGoDuration } from "../../util/go-duration.js";
import type { LauncherCommands } from "../launcher-clients.js";
import { parseVMISubresourcePath, vmiLauncher, writeAnswer, type LauncherLookup } from "./common.js";
import { METHOD_NOT_ALLOWED, type Refusal } from "./console.js";

export const LIFECYCLE_COMMANDS = ["pause", "unpause", "freeze", "unfreeze", "softreboot", "reset"] as const;
export type LifecycleCommand = (typeof LIFECYCLE_COMMANDS)[number];

export interface LifecycleTarget {
  namespace: string;
  name: string;
  command: LifecycleCommand;
}

/** The endpoint a request URL names, or undefined when it is none of these. */
export function parseLifecyclePath(url: string): LifecycleTarget | undefined {
  const target = parseVMISubresourcePath(url, LIFECYCLE_COMMANDS);
  return target && { namespace: target.namespace, name: target.name, command: target.subresource };
}

export type LifecycleLauncher = Pick<
  LauncherCommands,
  | "pauseVirtualMachine"
  | "unpauseVirtualMachine"
  | "freezeVirtualMachine"
  | "unfreezeVirtualMachine"
  | "softRebootVirtualMachine"
  | "resetVirtualMachine"
>;

export interface LifecycleHandlerOptions extends LauncherLookup<LifecycleLauncher> {
  /** Upstream's recorder: an event on the VMI, Normal unless said otherwise. */
  recordEvent?(
    vmi: VirtualMachineInstance,
    reason: string,
    message: string,
    type?: "Normal" | "Warning",
  ): void;
}

interface CommandSpec {
  call(launcher: LifecycleLauncher, vmi: VirtualMachineInstance, unfreezeSeconds: number): unknown;
  /** The log line of a failure; freeze also records it as a FreezeError event. */
  failed: string;
  /** Upstream answers a failed freeze or unfreeze with 400, anything else with 500. */
  failureCode: 400 | 500;
  event?: { reason: string; message: string };
}

const COMMANDS: Record<LifecycleCommand, CommandSpec> = {
  pause: {
    call: (launcher, vmi) => launcher.pauseVirtualMachine(vmi),
    failed: "Failed to pause VMI",
    failureCode: 500,
    event: { reason: "Paused", message: "VirtualMachineInstance paused" },
  },
  unpause: {
    call: (launcher, vmi) => launcher.unpauseVirtualMachine(vmi),
    failed: "Failed to unpause VMI",
    failureCode: 500,
    event: { reason: "Unpaused", message: "VirtualMachineInstance unpaused" },
  },
  freeze: {
    call: (launcher, vmi, seconds) => launcher.freezeVirtualMachine(vmi, seconds),
    failed: "Failed to freeze VMI",
    failureCode: 400,
  },
  unfreeze: {
    call: (launcher, vmi) => launcher.unfreezeVirtualMachine(vmi),
    failed: "Failed to unfreeze VMI",
    failureCode: 400,
  },
  softreboot: {
    call: (launcher, vmi) => launcher.softRebootVirtualMachine(vmi),
    failed: "Failed to soft reboot VMI",
    failureCode: 500,
    event: { reason: "SoftRebooted", message: "VirtualMachineInstance soft rebooted" },
  },
  reset: {
    call: (launcher, vmi) => launcher.resetVirtualMachine(vmi),
    failed: "Failed to reset VMI",
    failureCode: 500,
    event: { reason: "Reset", message: "VirtualMachineInstance reset" },
  },
};

/** A request body is small options; anything longer is not read. */
const MAX_BODY_BYTES = 64 * 1024;

/** The freeze body's v1.FreezeUnfreezeTimeout, as whole seconds (upstream truncates to int32 seconds). */
export function unfreezeTimeoutSeconds(body: string): { ok: true; seconds: number } | Refusal {
  let parsed: unknown = {};
  try {
    if (body.trim() !== "") parsed = JSON.parse(body);
    const timeout = (parsed as { unfreezeTimeout?: unknown } | null)?.unfreezeTimeout;
    if (timeout === undefined || timeout === null) {
      return { code: 400, message: "Unfreeze timeout in freeze request is not set" };
    }
    if (typeof timeout !== "string") throw new Error("not a duration");
    return { ok: true, seconds: Math.trunc(parseGoDuration(timeout) / 1000) };
  } catch {
    return { code: 400, message: "failed to unmarshal unfreeze timeout" };
  }
}

export class LifecycleHandler {
  constructor(private readonly options: LifecycleHandlerOptions) {}

  /** The answer to a request for `target`: a code and, on failure, a plain-text message. */
  async serve(method: string, target: LifecycleTarget, body = ""): Promise<Refusal | { code: 202 }> {
    if (method !== "PUT") return METHOD_NOT_ALLOWED;
    const found = await vmiLauncher(this.options, target);
    if ("code" in found) return found;
    const { vmi, launcher } = found;
    let seconds = 0;
    if (target.command === "freeze") {
      const timeout = unfreezeTimeoutSeconds(body);
      if (!("ok" in timeout)) return timeout;
      seconds = timeout.seconds;
    }
    const spec = COMMANDS[target.command];
    try {
      await spec.call(launcher, vmi, seconds);
    } catch (error) {
      const message = errorMessage(error);
      this.options.logger.error({ ...target, err: error }, spec.failed);
      if (target.command === "freeze") {
        this.options.recordEvent?.(vmi, "FreezeError", `${spec.failed}: ${message}`, "Warning");
      }
      return { code: spec.failureCode, message };
    }
    if (spec.event) this.options.recordEvent?.(vmi, spec.event.reason, spec.event.message);
    return { code: 202 };
  }

  /** Serves a plain HTTP request of the console server when it is one of these endpoints; false otherwise. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    const target = parseLifecyclePath(request.url ?? "");
    if (!target) return false;
    void readBody(request).then(async (body) => {
      writeAnswer(response, await this.serve(request.method ?? "", target, body));
    });
    return true;
  }
}

/** The request body as text, cut at MAX_BODY_BYTES (the rest is drained, not kept). */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      if (size >= MAX_BODY_BYTES) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8").slice(0, MAX_BODY_BYTES)));
    request.on("error", () => resolve(""));
  });
}

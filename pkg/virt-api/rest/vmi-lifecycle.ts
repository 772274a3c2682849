// The VMI subresources virt-handler performs besides pause (upstream pkg/virt-api/rest/lifecycle.go
// SoftReboot/Reset/Freeze/Unfreeze VMIRequestHandler): their checks and upstream's refusals, and the table
// of every such subresource that virt-api registers. The way to virt-handler is handler-put.ts.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { hasCondition, hasConditionWithStatus } from "../../controller/conditions.js";
import { errorMessage } from "../../util/error-message.js";
import { parseGoDuration } from "../../util/go-duration.js";
import { vmiConflict, type HandlerPutVerb } from "./handler-put.js";
import { PAUSED_CONDITION, VM_NOT_RUNNING, VMI_NOT_RUNNING, pauseVerb, unpauseVerb } from "./pause.js";
import { badRequest, type Status } from "./status.js";

export const VMI_IS_PAUSED = "VMI is paused";
export const NEITHER_AGENT_NOR_ACPI = "VMI neither have the agent connected nor the ACPI feature enabled";
export const UNFREEZE_TIMEOUT_NOT_SET = "Unfreeze timeout in freeze request is not set";
const AGENT_CONNECTED_CONDITION = "AgentConnected";

const isRunning = (vmi: VirtualMachineInstance) => vmi.status?.phase === "Running";

export function validateSoftReboot(vmi: VirtualMachineInstance): Status | undefined {
  if (!isRunning(vmi)) return vmiConflict(vmi, VM_NOT_RUNNING);
  if (hasConditionWithStatus(vmi.status, PAUSED_CONDITION, "True")) return vmiConflict(vmi, VMI_IS_PAUSED);
  // Without the agent the ACPI power button reboots the guest, unless ACPI was turned off.
  if (
    !hasCondition(vmi.status, AGENT_CONNECTED_CONDITION) &&
    vmi.spec.domain.features?.acpi?.enabled === false
  ) {
    return vmiConflict(vmi, NEITHER_AGENT_NOR_ACPI);
  }
  return undefined;
}

/** Upstream's reset explains a failure by the phase: the VMI may have been on its way to Running. */
export function rewordReset(vmi: VirtualMachineInstance | undefined, message: string): string {
  if (!vmi || isRunning(vmi)) return message;
  return `Failed to reset non-running VMI with phase ${vmi.status?.phase ?? ""}: ${message}`;
}

const unmarshalError = (detail: string): Status =>
  badRequest(`Can not unmarshal Request body to struct, error: ${detail}`);

/**
 * The freeze body, v1.FreezeUnfreezeTimeout: `unfreezeTimeout` must be a Go duration. Upstream leaves the body
 * to virt-handler, whose refusal then comes back as an InternalError; refused here, it is a BadRequest that
 * names the field, with virt-handler's words when the field is missing.
 */
export function decodeFreeze(body: unknown): { ok: true; dryRun: false } | { ok: false; status: Status } {
  const empty = body === undefined || body === null || body === "";
  if (!empty && (typeof body !== "object" || Array.isArray(body))) {
    return { ok: false, status: unmarshalError("expected a FreezeUnfreezeTimeout object") };
  }
  const timeout = empty ? undefined : (body as { unfreezeTimeout?: unknown }).unfreezeTimeout;
  if (timeout === undefined || timeout === null)
    return { ok: false, status: badRequest(UNFREEZE_TIMEOUT_NOT_SET) };
  if (typeof timeout !== "string") {
    return {
      ok: false,
      status: unmarshalError(
        `unfreezeTimeout: expected a duration such as "5m", got ${JSON.stringify(timeout)}`,
      ),
    };
  }
  try {
    parseGoDuration(timeout);
  } catch (error) {
    return { ok: false, status: unmarshalError(`unfreezeTimeout: ${errorMessage(error)}`) };
  }
  return { ok: true, dryRun: false };
}

const runningOnly =
  (why: string) =>
  (vmi: VirtualMachineInstance): Status | undefined =>
    isRunning(vmi) ? undefined : vmiConflict(vmi, why);

/** Every VMI subresource that is a PUT to virt-handler, by its name (also the handler endpoint's). */
export const VMI_HANDLER_VERBS = {
  pause: pauseVerb,
  unpause: unpauseVerb,
  freeze: { decode: decodeFreeze, validate: runningOnly(VM_NOT_RUNNING) },
  unfreeze: { validate: runningOnly(VMI_NOT_RUNNING) },
  softreboot: { validate: validateSoftReboot },
  // Upstream checks nothing before a reset; virt-handler's phase check and the rewording explain a refusal.
  reset: { reword: rewordReset },
} satisfies Record<string, HandlerPutVerb>;

export type VMIHandlerVerb = keyof typeof VMI_HANDLER_VERBS;

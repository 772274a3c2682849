// The pause and unpause subresources of a VMI (upstream pkg/virt-api/rest/lifecycle.go Pause/Unpause
// VMIRequestHandler): their options, checks and refusals; the way to virt-handler, which has the launcher
// suspend or resume the domain, is the shared one of handler-put.ts.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { PauseOptionsSchema, UnpauseOptionsSchema } from "../../api/generated/v1.js";
import { hasCondition } from "../../controller/conditions.js";
import { errorMessage } from "../../util/error-message.js";
import { vmiConflict, type HandlerPutVerb } from "./handler-put.js";
import { decodeOptions, isDryRun } from "./subresource-app.js";
import { conflict, forbidden, internalError, virtualMachineResource, type Status } from "./status.js";

// Upstream's pause refuses with the VM's wording, its unpause with the VMI's.
export const VM_NOT_RUNNING = "VM is not running";
export const VMI_NOT_RUNNING = "VMI is not running";
export const VMI_ALREADY_PAUSED = "VMI is already paused";
export const VMI_NOT_PAUSED = "VMI is not paused";
export const VM_SNAPSHOT_IN_PROGRESS = "VM snapshot is in progress";
export const LIVENESS_PROBE_NOT_SUPPORTED =
  "Pausing VMIs with a non-GuestAgentPing LivenessProbe is not supported";
export const PAUSED_CONDITION = "Paused";

export function validatePause(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.status?.phase !== "Running") return vmiConflict(vmi, VM_NOT_RUNNING);
  if (vmi.spec.livenessProbe && !vmi.spec.livenessProbe.guestAgentPing) {
    const name = JSON.stringify(vmi.metadata?.name ?? "");
    return forbidden(
      `virtualmachineinstance.kubevirt.io ${name} is forbidden: ${LIVENESS_PROBE_NOT_SUPPORTED}`,
    );
  }
  if (hasCondition(vmi.status, PAUSED_CONDITION)) return vmiConflict(vmi, VMI_ALREADY_PAUSED);
  return undefined;
}

export function validateUnpause(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.status?.phase !== "Running") return vmiConflict(vmi, VMI_NOT_RUNNING);
  if (!hasCondition(vmi.status, PAUSED_CONDITION)) return vmiConflict(vmi, VMI_NOT_PAUSED);
  return undefined;
}

function dryRunOptions(schema: typeof PauseOptionsSchema | typeof UnpauseOptionsSchema) {
  return (body: unknown) => {
    const options = decodeOptions<{ dryRun?: string[] }>(schema, body);
    return options.ok ? { ok: true as const, dryRun: isDryRun(options.value) } : options;
  };
}

export const pauseVerb: HandlerPutVerb = {
  decode: dryRunOptions(PauseOptionsSchema),
  validate: validatePause,
};

export const unpauseVerb: HandlerPutVerb = {
  decode: dryRunOptions(UnpauseOptionsSchema),
  // A VM whose snapshot is being taken stays paused until the snapshot is done.
  async precheck(backend, namespace, name) {
    let vm;
    try {
      vm = await backend.getVM(namespace, name);
    } catch (error) {
      return internalError(`unable to retrieve vm [${name}]: ${errorMessage(error)}`);
    }
    if (vm?.status?.snapshotInProgress === undefined) return undefined;
    return conflict(virtualMachineResource, name, VM_SNAPSHOT_IN_PROGRESS);
  },
  validate: validateUnpause,
};

// JSON patches the lifecycle subresources send: guarded by `test` operations so that a concurrent
// change makes the apiserver refuse the patch instead of silently overwriting it.
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStateChangeRequest,
} from "../../api/generated/v1.js";

import type { JsonPatchOp as JsonPatchOperation } from "../../apimachinery/patch/patch.js";
/** One JSON patch type for every component (pkg/apimachinery/patch). */
export type { JsonPatchOperation };

/** The apiserver's message when a `test` operation fails: the patch lost a race. */
export const JSON_PATCH_TEST_FAILED = "jsonpatch test operation does not apply";

export const START_REQUEST = "Start";
export const STOP_REQUEST = "Stop";
export const START_REQUEST_DATA_PAUSED_KEY = "paused";
export const START_REQUEST_DATA_PAUSED_TRUE = "true";

function isEmptyStatus(status: VirtualMachine["status"]): boolean {
  return status === undefined || Object.keys(status as object).length === 0;
}

/**
 * Appends state change requests to the VM's status. A pending request may only be overridden by a
 * single Stop; anything else means another start/stop is still being processed.
 */
export function changeRequestPatch(
  vm: VirtualMachine,
  changes: VirtualMachineStateChangeRequest[],
): { ok: true; patch: JsonPatchOperation[] } | { ok: false; message: string } {
  const patch: JsonPatchOperation[] = [];
  const pending = vm.status?.stateChangeRequests;
  if (isEmptyStatus(vm.status)) {
    patch.push({ op: "add", path: "/status", value: { stateChangeRequests: changes } });
  } else {
    patch.push({ op: "test", path: "/status/stateChangeRequests", value: pending ?? null });
    if (pending === undefined || pending.length === 0) {
      patch.push({ op: "add", path: "/status/stateChangeRequests", value: changes });
    } else if (changes.length === 1 && changes[0]?.action === STOP_REQUEST) {
      patch.push({ op: "replace", path: "/status/stateChangeRequests", value: changes });
    } else {
      return { ok: false, message: "unable to complete request: stop/start already underway" };
    }
  }
  if (vm.status?.startFailure !== undefined) patch.push({ op: "remove", path: "/status/startFailure" });
  return { ok: true, patch };
}

/** Flips the VM between Always and Halted through whichever of runStrategy/running it uses. */
export function runningPatch(vm: VirtualMachine, running: boolean): JsonPatchOperation[] {
  if (vm.spec.runStrategy !== undefined) {
    return [
      { op: "test", path: "/spec/runStrategy", value: vm.spec.runStrategy },
      { op: "replace", path: "/spec/runStrategy", value: running ? "Always" : "Halted" },
    ];
  }
  return [
    { op: "test", path: "/spec/running", value: vm.spec.running ?? null },
    { op: "replace", path: "/spec/running", value: running },
  ];
}

export function gracePeriodPatch(vmi: VirtualMachineInstance, gracePeriod: number): JsonPatchOperation[] {
  return [
    {
      op: "test",
      path: "/spec/terminationGracePeriodSeconds",
      value: vmi.spec.terminationGracePeriodSeconds ?? null,
    },
    { op: "replace", path: "/spec/terminationGracePeriodSeconds", value: gracePeriod },
  ];
}

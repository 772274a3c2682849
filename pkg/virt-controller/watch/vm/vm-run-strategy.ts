// What a VM's run strategy asks the controller to do right now (upstream's syncRunStrategy), as a pure
// decision; the controller carries it out with expectations.
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { isFinal, VMIPhase } from "../../../controller/vmi-phase.js";
import { hasStartRequest, hasStopRequestForVMI, RunStrategy } from "./vm-requests.js";
import { isBeingDeleted } from "../../../controller/object.js";

export type RunStrategyAction =
  | { kind: "none" }
  | { kind: "start" }
  | { kind: "stop" }
  /** RerunOnFailure after a failure: stop the VMI and queue a start request. */
  | { kind: "stopAndRequestStart" }
  /** Halted with a start request (a paused start): switch the VM to Always. */
  | { kind: "switchToAlways" }
  | { kind: "waitForBackoff"; seconds: number }
  | { kind: "unsupported"; message: string };

/** Seconds until a VM that keeps failing to start may be started again (status.startFailure). */
export function startFailureBackoffLeft(vm: VirtualMachine, nowMs: number): number {
  const retryAfter = vm.status?.startFailure?.retryAfterTimestamp;
  if (!retryAfter) return 0;
  const left = Math.floor(Date.parse(retryAfter) / 1000) - Math.floor(nowMs / 1000);
  return left > 0 ? left : 0;
}

/** RerunOnFailure starts on an explicit request, or when the VM was just switched to it. */
export function shouldStartRerunOnFailure(vm: VirtualMachine, strategy: string): boolean {
  return hasStartRequest(vm) || (vm.status?.runStrategy ?? "") !== strategy;
}

function startUnlessBackingOff(vm: VirtualMachine, nowMs: number): RunStrategyAction {
  const seconds = startFailureBackoffLeft(vm, nowMs);
  return seconds > 0 ? { kind: "waitForBackoff", seconds } : { kind: "start" };
}

export function decideRunStrategyAction(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
  strategy: string,
  nowMs: number,
): RunStrategyAction {
  switch (strategy) {
    case RunStrategy.Always:
      // A VMI must always run: a stop request or a finished VMI means stop now, start on the next sync.
      if (vmi) return hasStopRequestForVMI(vm, vmi) || isFinal(vmi) ? { kind: "stop" } : { kind: "none" };
      return startUnlessBackingOff(vm, nowMs);
    case RunStrategy.RerunOnFailure: {
      if (vmi) {
        const phase = vmi.status?.phase ?? "";
        const deleting = isBeingDeleted(vmi);
        const stop =
          hasStopRequestForVMI(vm, vmi) || phase === VMIPhase.Failed || phase === VMIPhase.Succeeded;
        if (deleting || !stop) return { kind: "none" };
        return phase === VMIPhase.Failed ? { kind: "stopAndRequestStart" } : { kind: "stop" };
      }
      if (!shouldStartRerunOnFailure(vm, strategy)) return { kind: "none" };
      return startUnlessBackingOff(vm, nowMs);
    }
    case RunStrategy.Manual:
      // Only the start/stop/restart subresources start and stop the VM.
      if (vmi) return hasStopRequestForVMI(vm, vmi) ? { kind: "stop" } : { kind: "none" };
      return hasStartRequest(vm) ? { kind: "start" } : { kind: "none" };
    case RunStrategy.Halted:
      if (vmi) return { kind: "stop" };
      return hasStartRequest(vm) ? { kind: "switchToAlways" } : { kind: "none" };
    case RunStrategy.Once:
      return vmi ? { kind: "none" } : { kind: "start" };
    case RunStrategy.WaitAsReceiver:
      return {
        kind: "unsupported",
        message: "the WaitAsReceiver run strategy is not supported by kubevirt-ts yet",
      };
    default:
      return { kind: "unsupported", message: `unknown runstrategy: ${strategy}` };
  }
}

// A VM's run strategy and its pending state change requests (status.stateChangeRequests, written by
// virt-api's start/stop/restart subresources): only the first request is ever acted on.
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStateChangeRequest,
} from "../../../api/generated/v1.js";

export const RunStrategy = {
  Always: "Always",
  Halted: "Halted",
  Manual: "Manual",
  RerunOnFailure: "RerunOnFailure",
  Once: "Once",
  WaitAsReceiver: "WaitAsReceiver",
  Unknown: "Unknown",
} as const;

export const StateChangeAction = { Start: "Start", Stop: "Stop" } as const;

export function firstStateChangeRequest(vm: VirtualMachine): VirtualMachineStateChangeRequest | undefined {
  return vm.status?.stateChangeRequests?.[0];
}

export function hasStartRequest(vm: VirtualMachine): boolean {
  return firstStateChangeRequest(vm)?.action === StateChangeAction.Start;
}

/** A stop request names the VMI it stops, so a restart does not stop the VMI started after it. */
export function hasStopRequestForVMI(vm: VirtualMachine, vmi: VirtualMachineInstance): boolean {
  const request = firstStateChangeRequest(vm);
  return (
    request?.action === StateChangeAction.Stop &&
    request.uid !== undefined &&
    request.uid === vmi.metadata?.uid
  );
}

// Upstream's start/stop/restart subresources (pkg/virt-api/rest/lifecycle.go) as pure decisions:
// given the VM, its VMI (if any) and the request options, either a refusal (a Status with upstream's
// words) or the writes to make. The handler performs the writes; nothing here talks to the cluster.
import type {
  RestartOptions,
  StartOptions,
  StopOptions,
  VirtualMachine,
  VirtualMachineInstance,
} from "../../api/generated/v1.js";
import {
  changeRequestPatch,
  gracePeriodPatch,
  runningPatch,
  START_REQUEST,
  START_REQUEST_DATA_PAUSED_KEY,
  START_REQUEST_DATA_PAUSED_TRUE,
  STOP_REQUEST,
  type JsonPatchOperation,
} from "./patch.js";
import { badRequest, conflict, internalError, virtualMachineResource, type Status } from "./status.js";
import { runStrategyOf } from "../../api/run-strategy.js";

export const VM_NOT_RUNNING = "VM is not running";
export const VOLUME_MIGRATION_MANUAL_RECOVERY_REQUIRED =
  "VM recovery required: Volume migration failed, leaving some volumes pointing to non-consistent targets; manual intervention is needed to reassign them to their original volumes.";

export type LifecycleWrite =
  | { kind: "patchVM"; patch: JsonPatchOperation[] }
  | { kind: "patchVMStatus"; patch: JsonPatchOperation[] }
  | { kind: "patchVMI"; patch: JsonPatchOperation[] }
  /** A forced restart: the VMI's running launcher pod is deleted with a one-second grace period. */
  | { kind: "deleteLauncherPod"; vmi: VirtualMachineInstance };

/** The grace period of a forced restart's pod deletion, the shortest safe one (upstream's). */
export const FORCED_RESTART_POD_GRACE_PERIOD_SECONDS = 1;
export const NEGATIVE_GRACE_PERIOD = "gracePeriod has to be greater or equal to 0";

export type Decision = { refused: Status } | { writes: LifecycleWrite[] };

const refuse = (status: Status): Decision => ({ refused: status });
const vmConflict = (vm: VirtualMachine, why: string): Decision =>
  refuse(conflict(virtualMachineResource, vm.metadata?.name ?? "", why));

export function isFinal(vmi: VirtualMachineInstance): boolean {
  return vmi.status?.phase === "Succeeded" || vmi.status?.phase === "Failed";
}

function hasTrueCondition(vm: VirtualMachine, type: string): boolean {
  return (vm.status?.conditions ?? []).some(
    (condition) => condition.type === type && condition.status === "True",
  );
}

function statusChange(vm: VirtualMachine, changes: Parameters<typeof changeRequestPatch>[1]): Decision {
  const built = changeRequestPatch(vm, changes);
  if (!built.ok) return refuse(internalError(built.message));
  return { writes: [{ kind: "patchVMStatus", patch: built.patch }] };
}

export function decideStart(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
  options: StartOptions,
): Decision {
  const phase = vmi?.status?.phase ?? "";
  if (vmi && !isFinal(vmi) && phase !== "Unknown" && phase !== "") {
    return vmConflict(vm, "VM is already running");
  }
  if (hasTrueCondition(vm, "ManualRecoveryRequired")) {
    return vmConflict(vm, VOLUME_MIGRATION_MANUAL_RECOVERY_REQUIRED);
  }
  const start = options.paused
    ? { action: START_REQUEST, data: { [START_REQUEST_DATA_PAUSED_KEY]: START_REQUEST_DATA_PAUSED_TRUE } }
    : { action: START_REQUEST };
  const strategy = runStrategyOf(vm);
  if (!strategy.ok) return refuse(internalError(strategy.message));
  switch (strategy.value) {
    case "Halted":
      // A paused start cannot be expressed by flipping the run strategy: it goes through a request.
      if (options.paused) return statusChange(vm, [start]);
      return { writes: [{ kind: "patchVM", patch: runningPatch(vm, true) }] };
    case "RerunOnFailure":
    case "Manual": {
      const rerun = strategy.value === "RerunOnFailure";
      if (rerun && vmi?.status?.phase === "Failed") {
        return vmConflict(vm, "RerunOnFailure does not support starting VM from failed state");
      }
      const needsRestart = vmi !== undefined && (rerun ? vmi.status?.phase === "Succeeded" : isFinal(vmi));
      const stop = { action: STOP_REQUEST, uid: vmi?.metadata?.uid ?? "" };
      return statusChange(vm, needsRestart ? [stop, start] : [start]);
    }
    case "Always":
    case "Once":
      return vmConflict(vm, `${strategy.value} does not support manual start requests`);
    default:
      return { writes: [] };
  }
}

/**
 * A negative grace period is refused before the VM is fetched. Upstream lets the VMI patch carry it (and the
 * VMI's validation refuse it); refused here with restart's wording, it is a BadRequest that names it.
 */
export function checkStopOptions(options: StopOptions): Status | undefined {
  if (options.gracePeriod !== undefined && options.gracePeriod < 0) return badRequest(NEGATIVE_GRACE_PERIOD);
  return undefined;
}

export function decideStop(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
  options: StopOptions,
): Decision {
  const invalid = checkStopOptions(options);
  if (invalid) return refuse(invalid);
  const strategy = runStrategyOf(vm);
  if (!strategy.ok) return refuse(internalError(strategy.message));
  const active = vmi !== undefined && !isFinal(vmi);
  const writes: LifecycleWrite[] = [];
  const oldGracePeriod = vmi?.spec.terminationGracePeriodSeconds ?? 0;
  if (active && options.gracePeriod !== undefined) {
    writes.push({ kind: "patchVMI", patch: gracePeriodPatch(vmi, options.gracePeriod) });
  }
  const stopRequest = (): Decision => {
    const stop = statusChange(vm, [{ action: STOP_REQUEST, uid: vmi?.metadata?.uid ?? "" }]);
    return "refused" in stop ? stop : { writes: [...writes, ...stop.writes] };
  };
  switch (strategy.value) {
    case "Halted":
      if (!active) return vmConflict(vm, VM_NOT_RUNNING);
      // Already halted: only a stop that shortens the grace period changes anything.
      if (
        options.gracePeriod === undefined ||
        (vmi.spec.terminationGracePeriodSeconds !== undefined && options.gracePeriod >= oldGracePeriod)
      ) {
        return vmConflict(vm, "Halted only supports manual stop requests with a shorter graceperiod");
      }
      return stopRequest();
    case "RerunOnFailure":
    case "Manual":
      if (!active) return vmConflict(vm, VM_NOT_RUNNING);
      return stopRequest();
    case "Always":
    case "Once":
      return { writes: [...writes, { kind: "patchVM", patch: runningPatch(vm, false) }] };
    default:
      return { writes };
  }
}

/** Options are checked before the VM is fetched, as upstream does. */
export function checkRestartOptions(options: RestartOptions): Status | undefined {
  const grace = options.gracePeriodSeconds;
  if (grace === undefined) return undefined;
  if (grace > 0) return badRequest("For force restart, only gracePeriod=0 is supported for now");
  if (grace < 0) return badRequest(NEGATIVE_GRACE_PERIOD);
  return undefined;
}

export function decideRestart(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
  options: RestartOptions,
): Decision {
  const invalid = checkRestartOptions(options);
  if (invalid) return refuse(invalid);
  if (hasTrueCondition(vm, "VolumesChange")) return vmConflict(vm, VOLUME_MIGRATION_MANUAL_RECOVERY_REQUIRED);
  const strategy = runStrategyOf(vm);
  if (!strategy.ok) return refuse(internalError(strategy.message));
  if (strategy.value === "Halted" || strategy.value === "Once") {
    return vmConflict(vm, `RunStategy ${strategy.value} does not support manual restart requests`);
  }
  if (!vmi) return vmConflict(vm, "VM is not running: Halted");
  const change = statusChange(vm, [
    { action: STOP_REQUEST, uid: vmi.metadata?.uid ?? "" },
    { action: START_REQUEST },
  ]);
  if ("refused" in change || options.gracePeriodSeconds !== 0) return change;
  // Only a forced restart (gracePeriodSeconds 0) is supported: the pod goes at once instead of the VMI.
  return { writes: [...change.writes, { kind: "deleteLauncherPod", vmi }] };
}

/**
 * The launcher pod a forced restart deletes, of the VMI's running ones (upstream findPod): the only one, or
 * during a migration the target once the migration completed, else the first; none when none runs.
 */
export function launcherPodToDelete(
  runningPods: readonly string[],
  vmi: VirtualMachineInstance,
): string | undefined {
  if (runningPods.length <= 1) return runningPods[0];
  const migration = vmi.status?.migrationState;
  if (!migration?.completed) return runningPods[0];
  return runningPods.find((pod) => pod === migration.targetPod);
}

// The VM status virt-controller reports (upstream's vm.go updateStatus and setPrintableStatus), as a
// pure function of the VM, its VMI, the sync result and what the controller is waiting for.
import type {
  VirtualMachine,
  VirtualMachineCondition,
  VirtualMachineInstance,
  VirtualMachineStatus,
} from "../../../api/generated/v1.js";
import {
  findCondition,
  hasConditionWithStatus,
  hasConditionWithStatusAndReason,
  removeCondition,
  timestamp,
  updateCondition,
} from "../../../controller/conditions.js";
import type { SyncError } from "../../../controller/sync-error.js";
import { VMIConditionType } from "../vmi/vmi-conditions.js";
import {
  isFinal,
  isMarkedForDeletion,
  isMigrating,
  isRunning,
  isScheduled,
  isScheduling,
  isUnprocessed,
} from "../../../controller/vmi-phase.js";
import {
  firstStateChangeRequest,
  hasStartRequest,
  hasStopRequestForVMI,
  RunStrategy,
  StateChangeAction,
} from "./vm-requests.js";
import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { hasUnboundPVC } from "../../../storage/types/pvc.js";
import { runStrategyOf } from "../../../api/run-strategy.js";
import { isBeingDeleted } from "../../../controller/object.js";
import { RestartRequiredMessage } from "./vm-restart-required.js";
import { pendingVolumeRequests } from "./vm-volume-requests.js";

export const VMConditionType = {
  Ready: "Ready",
  Failure: "Failure",
  RestartRequired: "RestartRequired",
} as const;

export const PrintableStatus = {
  Stopped: "Stopped",
  Provisioning: "Provisioning",
  Starting: "Starting",
  Running: "Running",
  Paused: "Paused",
  Stopping: "Stopping",
  Terminating: "Terminating",
  CrashLoopBackOff: "CrashLoopBackOff",
  Migrating: "Migrating",
  Unknown: "Unknown",
  Unschedulable: "ErrorUnschedulable",
  ErrImagePull: "ErrImagePull",
  ImagePullBackOff: "ImagePullBackOff",
  PvcNotFound: "ErrorPvcNotFound",
  WaitingForVolumeBinding: "WaitingForVolumeBinding",
  WaitingForReceiver: "WaitingForReceiver",
} as const;

/** The longest a VM that keeps failing to start waits before the next attempt. */
export const MaxCrashLoopBackoffDelaySeconds = 300;

export interface VMStatusInput {
  vm: VirtualMachine;
  vmi: VirtualMachineInstance | undefined;
  syncError: SyncError | undefined;
  /** The sync's finding on RestartRequired; undefined leaves the condition as it is. */
  restartRequired?: boolean | undefined;
  /** A VMI creation is expected (the controller created one the cache has not shown yet). */
  startExpected: boolean;
  /** A VMI deletion is expected. */
  stopExpected: boolean;
  /** The VM generation the VMI was started from (its kubevirt.io/vm-generation annotation). */
  observedGeneration: number | undefined;
  now: number;
  /** [0, 1), spreads the start backoff of VMs failing together. */
  random: () => number;
  /** virt-controller's PVC cache; absent: no claims are known. */
  pvcs?: PVCLookup;
}

function strategyOf(vm: VirtualMachine): string {
  const result = runStrategyOf(vm);
  return result.ok ? result.value : RunStrategy.Unknown;
}

/** Whether the first state change request has been carried out and can go. */
function firstRequestDone(vm: VirtualMachine, vmi: VirtualMachineInstance | undefined): boolean {
  const request = firstStateChangeRequest(vm);
  if (!request) return false;
  if (request.action === StateChangeAction.Stop) {
    // Without a VMI, or with another one than it named, the stop has happened (a stop without uid is void).
    return !vmi || request.uid === undefined || request.uid !== vmi.metadata?.uid;
  }
  if (request.action === StateChangeAction.Start) {
    return vmi !== undefined && !isMarkedForDeletion(vmi) && !isFinal(vmi);
  }
  return false;
}

const wasEverRunning = (vmi: VirtualMachineInstance | undefined): boolean =>
  (vmi?.status?.phaseTransitionTimestamps ?? []).some((transition) => transition.phase === "Running");

/** 10 s × failures², plus up to half of that at random, at most five minutes. */
export function startBackoffSeconds(failCount: number, random: () => number): number {
  const failures = Math.max(failCount, 1);
  const interval = Math.max(10, Math.floor(MaxCrashLoopBackoffDelaySeconds / 30));
  let delay = interval * failures * failures;
  delay += Math.floor(random() * (Math.floor(delay / 2) + 1));
  return Math.min(delay, MaxCrashLoopBackoffDelaySeconds);
}

/** Counts VMIs that failed before ever running, to back off restarting them; a run clears the count. */
function syncStartFailure(status: VirtualMachineStatus, vm: VirtualMachine, input: VMStatusInput): void {
  const { vmi } = input;
  const strategy = strategyOf(vm);
  const restarting = [RunStrategy.Always, RunStrategy.RerunOnFailure, RunStrategy.Once].includes(
    strategy as "Always",
  );
  if (wasEverRunning(vmi) || !restarting) {
    delete status.startFailure;
    return;
  }
  if (!vmi || !isFinal(vmi)) return;
  const uid = vmi.metadata?.uid ?? "";
  if (status.startFailure?.lastFailedVMIUID === uid) return;
  const count = (status.startFailure?.consecutiveFailCount ?? 0) + 1;
  const retryAfter = input.now + startBackoffSeconds(count, input.random) * 1000;
  status.startFailure = {
    lastFailedVMIUID: uid,
    retryAfterTimestamp: timestamp(retryAfter),
    consecutiveFailCount: count,
  };
}

function syncReadyCondition(
  status: VirtualMachineStatus,
  vmi: VirtualMachineInstance | undefined,
  now: number,
): void {
  const at = timestamp(now);
  const vmiReady = findCondition(vmi?.status, VMIConditionType.Ready);
  let ready: VirtualMachineCondition;
  if (!vmi) {
    ready = {
      type: VMConditionType.Ready,
      status: "False",
      reason: "VMINotExists",
      message: "VMI does not exist",
    };
  } else if (!vmiReady) {
    ready = {
      type: VMConditionType.Ready,
      status: "False",
      reason: "VMIConditionMissing",
      message: "VMI is missing the Ready condition",
    };
  } else {
    ready = { ...vmiReady, type: VMConditionType.Ready };
  }
  if (!vmi || !vmiReady) Object.assign(ready, { lastProbeTime: at, lastTransitionTime: at });
  updateCondition(status, ready);
}

function syncFailureCondition(status: VirtualMachineStatus, error: SyncError | undefined, now: number): void {
  if (!error) {
    removeCondition(status, VMConditionType.Failure);
    return;
  }
  updateCondition(status, {
    type: VMConditionType.Failure,
    reason: error.reason,
    message: error.message,
    lastTransitionTime: timestamp(now),
    status: "True",
  });
}

function syncRestartRequiredCondition(status: VirtualMachineStatus, input: VMStatusInput): void {
  if (input.restartRequired === undefined) return;
  if (!input.restartRequired) {
    removeCondition(status, VMConditionType.RestartRequired);
    return;
  }
  updateCondition(status, {
    type: VMConditionType.RestartRequired,
    status: "True",
    message: RestartRequiredMessage,
    lastTransitionTime: timestamp(input.now),
  });
}

/** Ready, Failure and RestartRequired are the VM's own; every other VMI condition is mirrored onto the VM. */
function syncConditions(status: VirtualMachineStatus, input: VMStatusInput): void {
  syncReadyCondition(status, input.vmi, input.now);
  syncFailureCondition(status, input.syncError, input.now);
  syncRestartRequiredCondition(status, input);
  const { vmi } = input;
  if (!vmi) return;
  const own = new Set<string>([
    VMConditionType.Ready,
    VMConditionType.Failure,
    VMConditionType.RestartRequired,
  ]);
  const mirrored = new Set<string>();
  for (const condition of vmi.status?.conditions ?? []) {
    if (own.has(condition.type)) continue;
    mirrored.add(condition.type);
    updateCondition(status, { ...condition });
  }
  for (const condition of [...(status.conditions ?? [])]) {
    if (!own.has(condition.type) && !mirrored.has(condition.type)) removeCondition(status, condition.type);
  }
}

function synchronizedFailure(vmi: VirtualMachineInstance | undefined, reason: string): boolean {
  return hasConditionWithStatusAndReason(vmi?.status, VMIConditionType.Synchronized, "False", reason);
}

/** Whether the run strategy (and the requests of a Manual VM) wants a VMI running (upstream's isSetToStart). */
function isSetToStart(vm: VirtualMachine, vmi: VirtualMachineInstance | undefined): boolean {
  switch (strategyOf(vm)) {
    case RunStrategy.Always:
      return true;
    case RunStrategy.Manual:
      return vmi ? !hasStopRequestForVMI(vm, vmi) : hasStartRequest(vm);
    case RunStrategy.RerunOnFailure:
      return vmi ? vmi.status?.phase !== "Succeeded" : true;
    case RunStrategy.Once:
      return vmi === undefined;
    default:
      return false;
  }
}

/**
 * First match wins: the states are not exclusive (a VM can be Running and Migrating). Upstream's
 * DataVolumeError and Provisioning rows (after ErrorUnschedulable) are left out: they read DataVolumes,
 * and without CDI there are none, so upstream never matches them either.
 */
function printableStatus(vm: VirtualMachine, status: VirtualMachineStatus, input: VMStatusInput): string {
  const { vmi } = input;
  const paused = hasConditionWithStatus(vmi?.status, VMIConditionType.Paused, "True");
  const strategy = strategyOf(vm);
  const rows: Array<[string, () => boolean]> = [
    [PrintableStatus.Terminating, () => isBeingDeleted(vm)],
    [
      PrintableStatus.Stopping,
      () => !!vmi && !isFinal(vmi) && (isMarkedForDeletion(vmi) || input.stopExpected),
    ],
    [PrintableStatus.Migrating, () => !!vmi && isMigrating(vmi, input.now)],
    [PrintableStatus.Paused, () => !!vmi && isRunning(vmi) && paused],
    [PrintableStatus.Running, () => !!vmi && isRunning(vmi) && !paused],
    [PrintableStatus.PvcNotFound, () => synchronizedFailure(vmi, "FailedPvcNotFound")],
    [
      PrintableStatus.Unschedulable,
      () =>
        hasConditionWithStatusAndReason(vmi?.status, VMIConditionType.PodScheduled, "False", "Unschedulable"),
    ],
    [
      PrintableStatus.WaitingForVolumeBinding,
      () =>
        isSetToStart(vm, vmi) &&
        hasUnboundPVC(
          vm.metadata?.namespace ?? "",
          vm.spec.template.spec?.volumes ?? [],
          input.pvcs ?? (() => undefined),
        ),
    ],
    [PrintableStatus.ErrImagePull, () => synchronizedFailure(vmi, "ErrImagePull")],
    [PrintableStatus.ImagePullBackOff, () => synchronizedFailure(vmi, "ImagePullBackOff")],
    [
      PrintableStatus.Starting,
      () => (vmi ? isUnprocessed(vmi) || isScheduling(vmi) || isScheduled(vmi) : input.startExpected),
    ],
    [
      PrintableStatus.CrashLoopBackOff,
      () =>
        (!vmi || isFinal(vmi)) &&
        !input.startExpected &&
        (status.startFailure?.consecutiveFailCount ?? 0) > 0 &&
        [RunStrategy.Always, RunStrategy.RerunOnFailure, RunStrategy.Once].includes(strategy as "Always"),
    ],
    [PrintableStatus.Stopped, () => (vmi ? isFinal(vmi) : !input.startExpected)],
    [
      PrintableStatus.WaitingForReceiver,
      () => (!vmi || vmi.status?.phase === "WaitingForSync") && strategy === RunStrategy.WaitAsReceiver,
    ],
  ];
  return rows.find(([, applies]) => applies())?.[0] ?? PrintableStatus.Unknown;
}

function setFlag(status: VirtualMachineStatus, flag: "created" | "ready", value: boolean): void {
  if (value) status[flag] = true;
  else delete status[flag];
}

export function computeVMStatus(input: VMStatusInput): VirtualMachineStatus {
  const { vm, vmi } = input;
  const status = structuredClone(vm.status ?? {});
  // Both are omitempty upstream: false is written by leaving them out.
  setFlag(status, "created", vmi !== undefined);
  setFlag(status, "ready", hasConditionWithStatus(vmi?.status, VMIConditionType.Ready, "True"));
  if (vmi && input.observedGeneration !== undefined) {
    status.observedGeneration = input.observedGeneration;
    status.desiredGeneration = vm.metadata?.generation ?? 0;
  }
  // Recorded from the first start on, so it tells whether the VM was ever started.
  if ((status.runStrategy ?? "") !== "" || status.created) status.runStrategy = strategyOf(vm);
  // Requests the template shows done are dropped; the list is omitempty, so an emptied one goes.
  if (status.volumeRequests) {
    const pending = pendingVolumeRequests(status.volumeRequests, vm.spec.template.spec);
    if (pending.length > 0) status.volumeRequests = pending;
    else delete status.volumeRequests;
  }
  if (firstRequestDone({ ...vm, status }, vmi))
    status.stateChangeRequests = status.stateChangeRequests?.slice(1);
  syncStartFailure(status, vm, input);
  syncConditions(status, input);
  status.printableStatus = printableStatus(vm, status, input);
  return status;
}

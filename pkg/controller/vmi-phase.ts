// A VMI's lifecycle phases (core/v1 VirtualMachineInstancePhase) and upstream's predicates on them, for
// virt-controller and virt-handler alike.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { timestamp } from "./conditions.js";
import { isBeingDeleted } from "./object.js";

export const VMIPhase = {
  Unset: "",
  Pending: "Pending",
  Scheduling: "Scheduling",
  Scheduled: "Scheduled",
  Running: "Running",
  Succeeded: "Succeeded",
  Failed: "Failed",
  WaitingForSync: "WaitingForSync",
  Unknown: "Unknown",
} as const;

const phaseOf = (vmi: VirtualMachineInstance): string => vmi.status?.phase ?? "";

/** Not yet handed to the scheduler: no phase, or Pending. */
export const isUnprocessed = (vmi: VirtualMachineInstance): boolean =>
  phaseOf(vmi) === VMIPhase.Unset || phaseOf(vmi) === VMIPhase.Pending;
export const isScheduling = (vmi: VirtualMachineInstance): boolean => phaseOf(vmi) === VMIPhase.Scheduling;
export const isScheduled = (vmi: VirtualMachineInstance): boolean => phaseOf(vmi) === VMIPhase.Scheduled;
export const isRunning = (vmi: VirtualMachineInstance): boolean => phaseOf(vmi) === VMIPhase.Running;
export const isWaitingForSync = (vmi: VirtualMachineInstance): boolean =>
  phaseOf(vmi) === VMIPhase.WaitingForSync;
export const isFinal = (vmi: VirtualMachineInstance): boolean =>
  phaseOf(vmi) === VMIPhase.Succeeded || phaseOf(vmi) === VMIPhase.Failed;
/** vmi.IsMarkedForDeletion(). */
export const isMarkedForDeletion = (vmi: VirtualMachineInstance): boolean => isBeingDeleted(vmi);

/**
 * Upstream's SetVMIPhaseTransitionTimestamp, for whoever moves the phase (virt-controller up to
 * Scheduled, virt-handler after): the first entry into a phase is recorded, a phase entered again is not.
 */
export function setPhaseTransitionTimestamp(
  before: VirtualMachineInstance["status"],
  after: NonNullable<VirtualMachineInstance["status"]>,
  now: number,
): void {
  const phase = after.phase ?? "";
  if ((before?.phase ?? "") === phase) return;
  const transitions = (after.phaseTransitionTimestamps ??= []);
  if (transitions.some((transition) => transition.phase === phase)) return;
  transitions.push({ phase, phaseTransitionTimestamp: timestamp(now) });
}

/** Upstream's migrations.IsMigrating: a migration started by `now` and not ended by then. */
export function isMigrating(vmi: VirtualMachineInstance, now: number): boolean {
  const state = vmi.status?.migrationState;
  const start = state?.startTimestamp ? Date.parse(state.startTimestamp) : undefined;
  const end = state?.endTimestamp ? Date.parse(state.endTimestamp) : undefined;
  return start !== undefined && now >= start && !(end !== undefined && now >= end);
}

// The migration's status as upstream's updateStatus and processMigrationPhase compute it: obvious failures
// first (VMI gone down, migration cancelled before the handoff, target pod down or gone, VMI migration
// state cleared, taken over or failed), then one step along Pending → Scheduling → Scheduled →
// PreparingTarget → TargetReady → Running → Succeeded from what the target pod and the VMI's
// migrationState (written by the virt-handlers) show. A pure function: the controller writes the result.
import { vmiHasHotplugVolumes } from "../../../controller/hotplug-volumes.js";
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigrationCondition,
} from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { hasCondition, hasConditionWithStatus, timestamp } from "../../../controller/conditions.js";
import type { EventType } from "../../../controller/event-types.js";
import { isBeingDeleted } from "../../../controller/object.js";
import { isFinal as isVMIFinal } from "../../../controller/vmi-phase.js";
import { isPodReady, podIsDown } from "../common/pod-state.js";
import {
  isMigrationFinal,
  isMigrationSynchronized,
  isTargetPreparing,
  MigrationCondition,
  MigrationPhase,
  MigrationReason,
  stateBelongsTo,
  targetIsCreated,
  targetIsHandedOff,
  VMIConditionMemoryChange,
  VMIConditionMigrationRequired,
  VMIConditionVCPUChange,
  type MigrationStatus,
  type StoredVMIM,
} from "./vmim.js";

export interface MigrationEvent {
  type: EventType;
  reason: string;
  message: string;
}

export interface MigrationStatusInput {
  migration: StoredVMIM;
  vmi: VirtualMachineInstance;
  /** The launcher Pod created for this migration, if any. */
  targetPod: Pod | undefined;
  /** The target pod's hotplug attachment pod, if any. */
  attachmentPod: Pod | undefined;
  /** The VMI's current (source) launcher Pod: its name is recorded while Pending. */
  sourcePod: Pod | undefined;
  /** No other unfinished migration holds the VMI's migration state. */
  canMigrate: boolean;
  /** The controller handed this migration to virt-handler (the VMI may not show it yet). */
  handedOff: boolean;
  syncError: Error | undefined;
  now: number;
}

export interface MigrationStatusResult {
  status: MigrationStatus;
  /** The migration is final: its finalizer goes. */
  removeFinalizer: boolean;
  events: MigrationEvent[];
}

const failed = (message: string): MigrationEvent => ({
  type: "Warning",
  reason: MigrationReason.FailedMigration,
  message,
});

function abortRequested(now: number): VirtualMachineInstanceMigrationCondition {
  return { type: MigrationCondition.AbortRequested, status: "True", lastProbeTime: timestamp(now) };
}

/** The first failure that ends the migration, as upstream checks them in order; undefined when none. */
function obviousFailure(
  input: MigrationStatusInput,
  status: MigrationStatus,
): MigrationEvent | undefined | null {
  const { migration, vmi, targetPod, attachmentPod, handedOff, now } = input;
  const state = vmi.status?.migrationState;
  const uid = migration.metadata?.uid;
  if (isVMIFinal(vmi)) return failed("Migration failed vmi shutdown during migration.");
  if (isBeingDeleted(migration) && !handedOff) {
    if (!hasCondition(status, MigrationCondition.AbortRequested))
      (status.conditions ??= []).push(abortRequested(now));
    return failed("Migration failed due to being canceled");
  }
  if (targetPod && podIsDown(targetPod))
    return failed("Migration failed because target pod shutdown during migration");
  if (targetIsCreated(migration) && !targetPod)
    return failed("Migration target pod was removed during active migration.");
  if (targetIsHandedOff(migration) && !isMigrationSynchronized(vmi))
    return failed("VMI's migration state was cleared during the active migration.");
  if (targetIsHandedOff(migration) && state?.migrationUid !== uid)
    return failed("VMI's migration state was taken over by another migration job during active migration.");
  if (stateBelongsTo(vmi, migration) && state?.failed === true)
    return failed("source node reported migration failed");
  if (isBeingDeleted(migration)) {
    // Handed off: virt-handler aborts; the migration ends with what the source reports.
    if (!hasCondition(status, MigrationCondition.AbortRequested))
      (status.conditions ??= []).push(abortRequested(now));
    return null;
  }
  if (attachmentPod && podIsDown(attachmentPod))
    return failed("Migration failed because target attachment pod shutdown during migration");
  return undefined;
}

/** The target (and its attachment pod, with hotplugged volumes) is there and ready. */
function targetReady(
  vmi: VirtualMachineInstance,
  pod: Pod | undefined,
  attachmentPod: Pod | undefined,
  needReady: boolean,
): boolean {
  if (!pod || (needReady && !isPodReady(pod))) return false;
  if (!vmiHasHotplugVolumes(vmi)) return true;
  return attachmentPod !== undefined && isPodReady(attachmentPod);
}

/** One step along the phases; events for what it did. */
function nextPhase(input: MigrationStatusInput, status: MigrationStatus, events: MigrationEvent[]): void {
  const { migration, vmi, targetPod, attachmentPod, syncError, now } = input;
  const state = vmi.status?.migrationState;
  switch (migration.status?.phase ?? "") {
    case MigrationPhase.Unset:
      if (input.canMigrate) {
        status.phase = MigrationPhase.Pending;
      } else {
        status.phase = MigrationPhase.Failed;
        events.push(
          failed("VMI is not eligible for migration because another migration job is in progress."),
        );
      }
      return;
    case MigrationPhase.Pending:
      if (targetPod) {
        // With hotplugged volumes the attachment pod must be ready first; the launcher need not be.
        if (!vmiHasHotplugVolumes(vmi) || (attachmentPod && isPodReady(attachmentPod)))
          status.phase = MigrationPhase.Scheduling;
      } else if (
        syncError?.message.includes("exceeded quota") &&
        !hasCondition(migration.status, MigrationCondition.RejectedByResourceQuota)
      ) {
        (status.conditions ??= []).push({
          type: MigrationCondition.RejectedByResourceQuota,
          status: "True",
          lastProbeTime: timestamp(now),
        });
      }
      return;
    case MigrationPhase.Scheduling:
      if (hasCondition(status, MigrationCondition.RejectedByResourceQuota)) {
        const kept = (status.conditions ?? []).filter(
          (condition) => condition.type !== MigrationCondition.RejectedByResourceQuota,
        );
        if (kept.length > 0) status.conditions = kept;
        else delete status.conditions;
      }
      if (targetReady(vmi, targetPod, attachmentPod, true)) status.phase = MigrationPhase.Scheduled;
      return;
    case MigrationPhase.Scheduled:
      if (isTargetPreparing(vmi, migration)) status.phase = MigrationPhase.PreparingTarget;
      return;
    case MigrationPhase.PreparingTarget:
      if ((state?.targetNode ?? "") !== "" && (state?.targetNodeAddress ?? "") !== "")
        status.phase = MigrationPhase.TargetReady;
      return;
    case MigrationPhase.TargetReady:
      if (state?.startTimestamp) status.phase = MigrationPhase.Running;
      return;
    case MigrationPhase.Running: {
      // Hot CPU or memory changes still settling on the target keep the migration open.
      const settling =
        hasCondition(vmi.status, VMIConditionVCPUChange) ||
        hasConditionWithStatus(vmi.status, VMIConditionMemoryChange, "True") ||
        hasConditionWithStatus(vmi.status, VMIConditionMigrationRequired, "True");
      if (state?.completed === true && !settling) {
        status.phase = MigrationPhase.Succeeded;
        events.push({
          type: "Normal",
          reason: MigrationReason.SuccessfulMigration,
          message: "Source node reported migration succeeded",
        });
      }
      return;
    }
  }
}

/** Upstream's SetVMIMigrationPhaseTransitionTimestamp: the first entry into each phase is stamped. */
function stampTransition(before: string, status: MigrationStatus, now: number): void {
  const phase = status.phase ?? "";
  if (before === phase) return;
  const stamps = (status.phaseTransitionTimestamps ??= []);
  if (stamps.some((stamp) => stamp.phase === phase)) return;
  stamps.push({ phase, phaseTransitionTimestamp: timestamp(now) });
}

export function computeMigrationStatus(input: MigrationStatusInput): MigrationStatusResult {
  const { migration, vmi, sourcePod, now } = input;
  const status: MigrationStatus = structuredClone(migration.status ?? {});
  const events: MigrationEvent[] = [];
  let removeFinalizer = false;
  if (isMigrationFinal(migration)) {
    // Keep what the VMI finally said about this migration.
    if (stateBelongsTo(vmi, migration)) status.migrationState = structuredClone(vmi.status?.migrationState);
    removeFinalizer = true;
  } else {
    const failure = obviousFailure(input, status);
    if (failure) {
      status.phase = MigrationPhase.Failed;
      events.push(failure);
    } else if (failure === undefined) {
      nextPhase(input, status, events);
    }
  }
  stampTransition(migration.status?.phase ?? "", status, now);
  // Upstream's SetSourcePod: the source pod is recorded while the migration is Pending.
  if (status.phase === MigrationPhase.Pending && sourcePod) {
    status.migrationState = { ...status.migrationState, sourcePod: sourcePod.metadata.name ?? "" };
  }
  return { status, removeFinalizer, events };
}

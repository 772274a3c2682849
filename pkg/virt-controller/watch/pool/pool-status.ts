// A pool's status as upstream's updateStatus computes it: its VMs and how many are Ready, the selector in
// string form for the scale subresource, ReplicaFailure while a sync fails (its reason and message the
// failure's) and ReplicaPaused while spec.paused. Adding or removing a condition is also told as an
// event. Nothing is written unless the status changed.
import type { VirtualMachinePoolStatus } from "../../../api/generated/v1beta1.js";
import type { Condition } from "../../../controller/conditions.js";
import type { EventType } from "../../../controller/event-types.js";
import type { Selector } from "../../../controller/label-selector.js";
import type { StoredVM, StoredVMPool } from "../../../controller/resources.js";
import type { SyncError } from "../../../controller/sync-error.js";
import { semanticEqual } from "../../../apimachinery/equality.js";
import {
  reconcileConditions,
  ReplicaFailureCondition,
  ReplicaPausedCondition,
} from "../common/replica-conditions.js";
import { filterReadyVMs } from "./pool-vms.js";

export const SuccessfulPausedPoolReason = "SuccessfulPaused";
export const SuccessfulResumePoolReason = "SuccessfulResume";

export interface PoolEvent {
  type: EventType;
  reason: string;
  message: string;
}

export interface PoolStatusUpdate {
  /** Undefined when the status stays as it is. */
  status: VirtualMachinePoolStatus | undefined;
  events: PoolEvent[];
}

export function poolStatusUpdate(
  pool: StoredVMPool,
  vms: readonly StoredVM[],
  syncError: SyncError | undefined,
  selector: Selector,
  now: number,
): PoolStatusUpdate {
  const current = pool.status ?? {};
  const paused = pool.spec.paused === true;
  const { conditions, added, removed } = reconcileConditions(
    current.conditions as Condition[] | undefined,
    [
      {
        type: ReplicaFailureCondition,
        cause: syncError && { reason: syncError.reason, message: syncError.message },
      },
      {
        type: ReplicaPausedCondition,
        cause: paused
          ? { reason: SuccessfulPausedPoolReason, message: "Pool controller is paused" }
          : undefined,
      },
    ],
    now,
  );
  const events: PoolEvent[] = [];
  if (syncError && added.has(ReplicaFailureCondition)) {
    events.push({ type: "Warning", reason: syncError.reason, message: syncError.message });
  }
  if (added.has(ReplicaPausedCondition)) {
    events.push({ type: "Normal", reason: SuccessfulPausedPoolReason, message: "Pool is paused" });
  }
  if (removed.has(ReplicaPausedCondition)) {
    events.push({ type: "Normal", reason: SuccessfulResumePoolReason, message: "Pool is unpaused" });
  }

  // Zero counts, an empty selector and no conditions are left out, as upstream's omitempty fields are.
  const {
    replicas: _replicas,
    readyReplicas: _ready,
    labelSelector: _selector,
    conditions: _c,
    ...rest
  } = current;
  const status: VirtualMachinePoolStatus = { ...rest };
  const replicas = vms.length;
  const readyReplicas = filterReadyVMs(vms).length;
  const labelSelector = selector.toString();
  if (replicas !== 0) status.replicas = replicas;
  if (readyReplicas !== 0) status.readyReplicas = readyReplicas;
  if (conditions.length > 0) status.conditions = conditions as VirtualMachinePoolStatus["conditions"];
  if (labelSelector !== "") status.labelSelector = labelSelector;
  return { status: semanticEqual(status, current) ? undefined : status, events };
}

// A replica set's status as upstream's updateStatus computes it: how many of its VMIs are alive and
// ready, the selector in string form (what the scale subresource hands to autoscalers), and the
// ReplicaPaused and ReplicaFailure conditions. Nothing is written unless one of them changed.
import type { VirtualMachineInstanceReplicaSetStatus } from "../../../api/generated/v1.js";
import { hasCondition } from "../../../controller/conditions.js";
import type { Selector } from "../../../controller/label-selector.js";
import type { StoredVMI, StoredVMIRS } from "../../../controller/resources.js";
import {
  reconcileConditions,
  ReplicaFailureCondition,
  ReplicaPausedCondition,
} from "../common/replica-conditions.js";
import { calcDiff, filterReadyVMIs } from "./replicaset-vmis.js";

export { ReplicaFailureCondition, ReplicaPausedCondition };

export interface StatusUpdate {
  status: VirtualMachineInstanceReplicaSetStatus;
  /** The paused state flipped: upstream then tells with a SuccessfulPaused or SuccessfulResumed event. */
  pausedChanged: boolean;
}

/** The status to write, or undefined when what it reports is unchanged. */
export function replicaSetStatusUpdate(
  rs: StoredVMIRS,
  activeVMIs: readonly StoredVMI[],
  scaleError: Error | undefined,
  selector: Selector,
  now: number,
): StatusUpdate | undefined {
  const current = rs.status ?? {};
  const replicas = activeVMIs.length;
  const readyReplicas = filterReadyVMIs(activeVMIs).length;
  const labelSelector = selector.toString();
  const paused = rs.spec.paused === true;
  const statesMatch = replicas === (current.replicas ?? 0) && readyReplicas === (current.readyReplicas ?? 0);
  const errorsMatch = (scaleError !== undefined) === hasCondition(current, ReplicaFailureCondition);
  const pausedMatch = paused === hasCondition(current, ReplicaPausedCondition);
  const labelSelectorMatch = labelSelector === (current.labelSelector ?? "");
  if (statesMatch && errorsMatch && pausedMatch && labelSelectorMatch) return undefined;

  const { conditions } = reconcileConditions(
    current.conditions,
    [
      {
        type: ReplicaPausedCondition,
        cause: paused ? { reason: "Paused", message: "Controller got paused" } : undefined,
      },
      {
        type: ReplicaFailureCondition,
        // Upstream names the failure after the direction the replica set was scaling in.
        cause: scaleError && {
          reason: calcDiff(rs, activeVMIs) < 0 ? "FailedCreate" : "FailedDelete",
          message: scaleError.message,
        },
      },
    ],
    now,
  );
  // Zero counts, an empty selector and no conditions are left out, as upstream's omitempty fields are.
  const status: VirtualMachineInstanceReplicaSetStatus = {};
  if (replicas !== 0) status.replicas = replicas;
  if (readyReplicas !== 0) status.readyReplicas = readyReplicas;
  if (conditions.length > 0) status.conditions = conditions;
  if (labelSelector !== "") status.labelSelector = labelSelector;
  return { status, pausedChanged: !pausedMatch };
}

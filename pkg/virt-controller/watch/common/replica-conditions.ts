// The two conditions the replica set and pool controllers keep (upstream's ReplicaPaused and
// ReplicaFailure): each is added while its cause holds and removed once it no longer does; one already
// there is left as it is, so its reason, message and transition time tell when it began.
import { hasCondition, removeCondition, timestamp, type Condition } from "../../../controller/conditions.js";

export const ReplicaFailureCondition = "ReplicaFailure";
export const ReplicaPausedCondition = "ReplicaPaused";

export interface ConditionCause {
  reason: string;
  message: string;
}

export interface WantedCondition {
  type: string;
  /** Present: the condition should be there; absent: it should not. */
  cause: ConditionCause | undefined;
}

export interface ReconciledConditions {
  conditions: Condition[];
  added: ReadonlySet<string>;
  removed: ReadonlySet<string>;
}

/** The conditions after applying `wanted` in order (new ones are appended in that order). */
export function reconcileConditions(
  current: readonly Condition[] | undefined,
  wanted: readonly WantedCondition[],
  now: number,
): ReconciledConditions {
  const holder = { conditions: structuredClone([...(current ?? [])]) };
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const { type, cause } of wanted) {
    const present = hasCondition(holder, type);
    if (cause && !present) {
      holder.conditions.push({
        type,
        status: "True",
        reason: cause.reason,
        message: cause.message,
        lastTransitionTime: timestamp(now),
      });
      added.add(type);
    } else if (!cause && present) {
      removeCondition(holder, type);
      removed.add(type);
    }
  }
  return { conditions: holder.conditions, added, removed };
}

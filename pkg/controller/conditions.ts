// Upstream's condition managers (pkg/controller/conditions.go) for VM, VMI and Pod conditions alike:
// they all carry type, status, reason, message and two timestamps.
import type { VirtualMachineInstanceCondition } from "../api/generated/v1.js";
import type { SyncError } from "./sync-error.js";

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

export interface HasConditions<C extends Condition> {
  conditions?: C[];
}

export function findCondition<C extends Condition>(
  holder: HasConditions<C> | undefined | null,
  type: string,
): C | undefined {
  return holder?.conditions?.find((condition) => condition.type === type);
}

export function hasCondition(holder: HasConditions<Condition> | undefined | null, type: string): boolean {
  return findCondition(holder, type) !== undefined;
}

export function hasConditionWithStatus(
  holder: HasConditions<Condition> | undefined | null,
  type: string,
  status: string,
): boolean {
  return findCondition(holder, type)?.status === status;
}

export function hasConditionWithStatusAndReason(
  holder: HasConditions<Condition> | undefined | null,
  type: string,
  status: string,
  reason: string,
): boolean {
  const condition = findCondition(holder, type);
  return condition?.status === status && (condition.reason ?? "") === reason;
}

/** Adds the condition, or replaces one of its type whose status or reason differ (keeping its times otherwise). */
export function updateCondition<C extends Condition>(holder: HasConditions<C>, condition: C): void {
  const conditions = (holder.conditions ??= []);
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  if (index < 0) {
    conditions.push(condition);
    return;
  }
  const existing = conditions[index];
  if (
    existing &&
    (existing.status !== condition.status || (existing.reason ?? "") !== (condition.reason ?? ""))
  ) {
    conditions[index] = condition;
  }
}

export function removeCondition<C extends Condition>(holder: HasConditions<C>, type: string): void {
  if (!holder.conditions) return;
  holder.conditions = holder.conditions.filter((condition) => condition.type !== type);
}

/** Same types with the same status and reason, in any order (upstream's ConditionsEqual). */
export function conditionsEqual(
  a: HasConditions<Condition> | undefined,
  b: HasConditions<Condition> | undefined,
): boolean {
  const left = a?.conditions ?? [];
  const right = b?.conditions ?? [];
  if (left.length !== right.length) return false;
  return left.every((condition) =>
    hasConditionWithStatusAndReason(b, condition.type, condition.status, condition.reason ?? ""),
  );
}

/** metav1.Now() as the apiserver stores it: RFC 3339, whole seconds. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** v1.VirtualMachineInstanceSynchronized: set by virt-controller and virt-handler after a failed sync. */
export const VirtualMachineInstanceSynchronized = "Synchronized";

/**
 * The Synchronized condition carries the last sync error (reason and message), and goes away once a sync
 * succeeds; an unchanged failure keeps its transition time.
 */
export function syncFailureCondition(
  status: HasConditions<VirtualMachineInstanceCondition>,
  error: SyncError | undefined,
  now: number,
): void {
  if (!error) {
    removeCondition(status, VirtualMachineInstanceSynchronized);
    return;
  }
  if (hasConditionWithStatusAndReason(status, VirtualMachineInstanceSynchronized, "False", error.reason))
    return;
  removeCondition(status, VirtualMachineInstanceSynchronized);
  (status.conditions ??= []).push({
    type: VirtualMachineInstanceSynchronized,
    reason: error.reason,
    message: error.message,
    lastTransitionTime: timestamp(now),
    status: "False",
  });
}

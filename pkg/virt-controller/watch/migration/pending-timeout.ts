// A target pod that never leaves Pending (upstream's handlePendingPodTimeout): unschedulable for 5 minutes,
// or pending for any reason for 15, it is deleted, which fails the migration; until then the migration is
// looked at again when the timeout falls due. A migration may shorten either through an annotation.
import type { Pod } from "../../../api/core/v1/pod.js";
import { isBeingDeleted } from "../../../controller/object.js";
import {
  MigrationPendingPodTimeoutSecondsAnnotation,
  MigrationUnschedulablePodTimeoutSecondsAnnotation,
  type StoredVMIM,
} from "./vmim.js";

export const DefaultUnschedulablePendingTimeoutSeconds = 5 * 60;
export const DefaultCatchAllPendingTimeoutSeconds = 15 * 60;

export interface PendingPodVerdict {
  /** The scheduler refused the pod: upstream warns on every look. */
  unschedulable: boolean;
  /** Delete the pod with this message (upstream's event text). */
  deleteMessage?: string;
  /** Look again after this long (ms). */
  requeueAfterMs?: number;
}

/** Go's strconv.Atoi: an optional sign and decimal digits only. */
function timeoutFrom(migration: StoredVMIM, annotation: string, fallback: number): number {
  const raw = migration.metadata?.annotations?.[annotation];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return fallback;
  return Number.parseInt(raw, 10);
}

export function isPodPendingUnschedulable(pod: Pod): boolean {
  if (pod.status?.phase !== "Pending" || isBeingDeleted(pod)) return false;
  return (pod.status.conditions ?? []).some(
    (condition) =>
      condition.type === "PodScheduled" &&
      condition.status === "False" &&
      condition.reason === "Unschedulable",
  );
}

export function pendingPodVerdict(
  migration: StoredVMIM,
  pod: Pod,
  now: number,
): PendingPodVerdict | undefined {
  const created = pod.metadata.creationTimestamp;
  if (pod.status?.phase !== "Pending" || isBeingDeleted(pod) || !created) return undefined;
  const unschedulableTimeout = timeoutFrom(
    migration,
    MigrationUnschedulablePodTimeoutSecondsAnnotation,
    DefaultUnschedulablePendingTimeoutSeconds,
  );
  const catchAllTimeout = timeoutFrom(
    migration,
    MigrationPendingPodTimeoutSecondsAnnotation,
    DefaultCatchAllPendingTimeoutSeconds,
  );
  const pending = Math.max(0, Math.floor(now / 1000) - Math.floor(Date.parse(created) / 1000));
  const name = `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`;
  const unschedulable = isPodPendingUnschedulable(pod);
  if (unschedulable && pending >= unschedulableTimeout) {
    return { unschedulable, deleteMessage: `unschedulable pod ${name} timeout period exceeded` };
  }
  if (pending >= catchAllTimeout) {
    return { unschedulable, deleteMessage: `pending pod ${name} timeout period exceeded` };
  }
  const dueIn = unschedulable ? Math.min(unschedulableTimeout, catchAllTimeout) : catchAllTimeout;
  return { unschedulable, requeueAfterMs: (dueIn - pending) * 1000 };
}

// Which VMIs of a node the evacuation controller moves, and how many migrations it may start now
// (upstream's drain/evacuation/evacuation.go: vmisToMigrate, filterRunningNonMigratingVMIs and the spot
// arithmetic in sync), as pure functions over what the caches hold.
import type { Pod } from "../../../../api/core/v1/pod.js";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { isBeingDeleted, type KubeObject } from "../../../../controller/object.js";
import { isFinal, isMigrating } from "../../../../controller/vmi-phase.js";
import { isControlledBy, podIsDown } from "../../common/pod-state.js";
import { isMigrationRunning, type StoredVMIM } from "../../migration/vmim.js";

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** A Node as this controller reads it: its taints. */
export type TaintedNode = KubeObject & { spec?: { taints?: Taint[] } };

const vmiKey = (vmi: VirtualMachineInstance): string =>
  `${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}`;

/** Upstream's MatchTaint against the drain taint: same key and effect NoSchedule, any value. */
export function hasDrainTaint(node: TaintedNode, taintKey: string): boolean {
  return (node.spec?.taints ?? []).some((taint) => taint.key === taintKey && taint.effect === "NoSchedule");
}

export const isMigratable = (vmi: VirtualMachineInstance): boolean =>
  (vmi.status?.conditions ?? []).some((c) => c.type === "LiveMigratable" && c.status === "True");

/** Upstream's VMIMigratableOnEviction, with the strategy already resolved (the VMI's, else the cluster's). */
export function migratableOnEviction(vmi: VirtualMachineInstance, strategy: string | undefined): boolean {
  if (strategy === "LiveMigrate") return true;
  if (strategy === "LiveMigrateIfPossible") return isMigratable(vmi);
  return false;
}

/** Marked, still on the node it was marked on, and not migrating right now. */
export function isMarkedForEvacuation(vmi: VirtualMachineInstance, now: number): boolean {
  const evacuating = vmi.status?.evacuationNodeName ?? "";
  if (evacuating === "") return false;
  if ((vmi.status?.nodeName ?? "") !== evacuating) return false;
  return !isMigrating(vmi, now);
}

/** Every VMI of a drain-tainted node (upstream's deprecated path), else those marked for evacuation. */
export function vmisToEvacuate(
  node: TaintedNode,
  vmisOnNode: readonly VirtualMachineInstance[],
  taintKey: string,
  now: number,
): VirtualMachineInstance[] {
  if (hasDrainTaint(node, taintKey)) return [...vmisOnNode];
  return vmisOnNode.filter((vmi) => isMarkedForEvacuation(vmi, now));
}

/** Launcher Pods of the VMI that have not finished (upstream's VMIActivePodsCount). */
export function activePodsCount(vmi: VirtualMachineInstance, podsInNamespace: readonly Pod[]): number {
  return podsInNamespace.filter((pod) => !podIsDown(pod) && isControlledBy(pod, vmi.metadata?.uid)).length;
}

export interface CandidateLookups {
  strategyOf: (vmi: VirtualMachineInstance) => string | undefined;
  podsIn: (namespace: string) => readonly Pod[];
}

export interface Candidates {
  /** Ready to get a migration. */
  migratable: VirtualMachineInstance[];
  /** Want to migrate but cannot (LiveMigratable is not True). */
  nonMigratable: VirtualMachineInstance[];
}

/** Upstream's filterRunningNonMigratingVMIs. */
export function splitCandidates(
  vmis: readonly VirtualMachineInstance[],
  unfinishedMigrations: readonly StoredVMIM[],
  lookups: CandidateLookups,
): Candidates {
  const migrating = new Set(
    unfinishedMigrations.map((m) => `${m.metadata?.namespace ?? ""}/${m.spec.vmiName ?? ""}`),
  );
  const result: Candidates = { migratable: [], nonMigratable: [] };
  for (const vmi of vmis) {
    if (isFinal(vmi) || isBeingDeleted(vmi)) continue;
    if (!migratableOnEviction(vmi, lookups.strategyOf(vmi))) continue;
    if (!isMigratable(vmi)) {
      result.nonMigratable.push(vmi);
      continue;
    }
    if (migrating.has(vmiKey(vmi))) continue;
    // Source or target pods of an earlier migration still going away.
    if (activePodsCount(vmi, lookups.podsIn(vmi.metadata?.namespace ?? "")) > 1) continue;
    result.migratable.push(vmi);
  }
  return result;
}

export interface Limits {
  parallelMigrationsPerCluster: number;
  parallelOutboundMigrationsPerNode: number;
}

/** The migrations past Pending (upstream's FilterRunningMigrations). */
export const runningMigrations = (migrations: readonly StoredVMIM[]): StoredVMIM[] =>
  migrations.filter(isMigrationRunning);

/** Free spots: the smaller of what the cluster and this source node have left. */
export function freeSpots(
  vmisOnNode: readonly VirtualMachineInstance[],
  running: readonly StoredVMIM[],
  limits: Limits,
): number {
  const onNode = new Set(vmisOnNode.map(vmiKey));
  const outbound = running.filter((m) =>
    onNode.has(`${m.metadata?.namespace ?? ""}/${m.spec.vmiName ?? ""}`),
  ).length;
  return Math.min(
    limits.parallelMigrationsPerCluster - running.length,
    limits.parallelOutboundMigrationsPerNode - outbound,
  );
}

export interface Selection {
  /** The VMIs to create a migration for now. */
  selected: VirtualMachineInstance[];
  /** Non-migratable VMIs that would have had a spot: each gets an event. */
  warned: VirtualMachineInstance[];
  /** When to look again, if the limits held something back. */
  requeueAfterMs?: number;
}

/** Re-checks when no spot is free, and to keep the not-migratable events fresh, as upstream. */
export const NoSpotRequeueMs = 5_000;
export const NonMigratableRequeueMs = 60_000;

/** Upstream's spot arithmetic without the priority queue: migratable VMIs first, then warnings. */
export function selectWithinLimits(candidates: Candidates, spots: number): Selection {
  if (spots <= 0) return { selected: [], warned: [], requeueAfterMs: NoSpotRequeueMs };
  const taken = Math.min(spots, candidates.migratable.length);
  const warned = candidates.nonMigratable.slice(0, Math.min(spots - taken, candidates.nonMigratable.length));
  if (taken === 0) {
    return warned.length > 0
      ? { selected: [], warned, requeueAfterMs: NonMigratableRequeueMs }
      : { selected: [], warned };
  }
  return { selected: candidates.migratable.slice(0, taken), warned };
}

// How a pool picks the VMs it scales in or updates (upstream's pool.go strategy helpers): which strategy
// is in force, the order of the selection policy (Random unless a sortPolicy says otherwise), the
// selectors that narrow it, how many VMs may be unavailable during an update, and which failing VMs
// autohealing replaces.
import type {
  VirtualMachinePoolAutohealingStrategy,
  VirtualMachinePoolSelectionPolicy,
  VirtualMachinePoolSelectors,
} from "../../../api/generated/v1beta1.js";
import { findCondition } from "../../../controller/conditions.js";
import { Selector } from "../../../controller/label-selector.js";
import type { StoredVM, StoredVMPool } from "../../../controller/resources.js";
import { errorMessage } from "../../../util/error-message.js";
import { parseGoDuration } from "../../../util/go-duration.js";
import { indexFromName } from "./pool-vms.js";

export const SortPolicy = {
  AscendingOrder: "AscendingOrder",
  DescendingOrder: "DescendingOrder",
  Newest: "Newest",
  Oldest: "Oldest",
  Random: "Random",
} as const;

export const isUnmanagedScaleIn = (pool: StoredVMPool): boolean =>
  pool.spec.scaleInStrategy?.unmanaged !== undefined && pool.spec.scaleInStrategy.unmanaged !== null;

export const isOpportunisticScaleIn = (pool: StoredVMPool): boolean =>
  pool.spec.scaleInStrategy?.opportunistic !== undefined && pool.spec.scaleInStrategy.opportunistic !== null;

export const isUnmanagedUpdate = (pool: StoredVMPool): boolean =>
  pool.spec.updateStrategy?.unmanaged !== undefined && pool.spec.updateStrategy.unmanaged !== null;

export const isOpportunisticUpdate = (pool: StoredVMPool): boolean =>
  pool.spec.updateStrategy?.opportunistic !== undefined && pool.spec.updateStrategy.opportunistic !== null;

export const isAutohealingEnabled = (pool: StoredVMPool): boolean =>
  pool.spec.autohealing !== undefined && pool.spec.autohealing !== null;

export const scaleInSelectionPolicy = (pool: StoredVMPool): VirtualMachinePoolSelectionPolicy | undefined =>
  pool.spec.scaleInStrategy?.proactive?.selectionPolicy;

export const updateSelectionPolicy = (pool: StoredVMPool): VirtualMachinePoolSelectionPolicy | undefined =>
  pool.spec.updateStrategy?.proactive?.selectionPolicy;

/** A random integer in [0, n): injectable so that tests can fix the Random order. */
export type RandomInt = (n: number) => number;

export const mathRandomInt: RandomInt = (n) => Math.floor(Math.random() * n);

const ordinal = (vm: StoredVM): number => indexFromName(vm.metadata?.name ?? "") ?? 0;
const created = (vm: StoredVM): string => vm.metadata?.creationTimestamp ?? "";

/** sortVMsBasedOnSortPolicy: a copy of `vms` in the policy's order; an unknown policy is Random. */
export function sortVMs(vms: readonly StoredVM[], policy: string | undefined, random: RandomInt): StoredVM[] {
  const sorted = [...vms];
  switch (policy ?? SortPolicy.Random) {
    case SortPolicy.AscendingOrder:
      return sorted.sort((a, b) => ordinal(a) - ordinal(b));
    case SortPolicy.DescendingOrder:
      return sorted.sort((a, b) => ordinal(b) - ordinal(a));
    case SortPolicy.Newest:
      return sorted.sort((a, b) => created(b).localeCompare(created(a)));
    case SortPolicy.Oldest:
      return sorted.sort((a, b) => created(a).localeCompare(created(b)));
    default:
      // Fisher-Yates, as Go's rand.Shuffle.
      for (let i = sorted.length - 1; i > 0; i--) {
        const j = random(i + 1);
        [sorted[i], sorted[j]] = [sorted[j] as StoredVM, sorted[i] as StoredVM];
      }
      return sorted;
  }
}

/**
 * filterVMsBasedOnSelectors: the VMs whose template labels match the label selector and whose template
 * node selector matches the node selector requirements (each only when given).
 */
export function filterVMsBySelectors(
  vms: readonly StoredVM[],
  selectors: VirtualMachinePoolSelectors,
): StoredVM[] {
  let labels: Selector | undefined;
  let nodes: Selector | undefined;
  if (selectors.labelSelector) {
    try {
      labels = Selector.fromLabelSelector(selectors.labelSelector);
    } catch (err) {
      throw new Error(`failed to parse label selector from pool: ${errorMessage(err)}`);
    }
  }
  if (selectors.nodeSelectorRequirementMatcher) {
    try {
      nodes = Selector.fromNodeSelectorRequirements(selectors.nodeSelectorRequirementMatcher);
    } catch (err) {
      throw new Error(`failed to parse node selector from pool: ${errorMessage(err)}`);
    }
  }
  if (!labels && !nodes) return [...vms];
  return vms.filter(
    (vm) =>
      (!labels || labels.matches(vm.spec.template.metadata?.labels)) &&
      (!nodes || nodes.matches(vm.spec.template.spec?.nodeSelector)),
  );
}

/** Go's strconv.ParseInt(s, 10, 32), failing with its message. */
function parseInt32(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.ParseInt: parsing "${text}": invalid syntax`);
  const value = Number(text);
  if (value > 2 ** 31 - 1 || value < -(2 ** 31)) {
    throw new Error(`strconv.ParseInt: parsing "${text}": value out of range`);
  }
  return value;
}

/** calculateMaxUnavailableInt: spec.maxUnavailable (default 100%) of spec.replicas, at least 1. */
export function maxUnavailable(pool: StoredVMPool): number {
  const setting = pool.spec.maxUnavailable ?? "100%";
  const replicas = pool.spec.replicas ?? 1;
  let count: number;
  if (typeof setting === "string") {
    let percentage: number;
    try {
      percentage = parseInt32(setting.endsWith("%") ? setting.slice(0, -1) : setting);
    } catch (err) {
      throw new Error(`invalid maxUnavailable percentage: ${errorMessage(err)}`);
    }
    count = Math.trunc((replicas * percentage) / 100);
  } else {
    count = setting;
  }
  return Math.max(count, 1);
}

const DefaultStartUpFailureThreshold = 3;
const DefaultMinFailingToStartMs = 5 * 60 * 1000;

/** Printable statuses that, once the VM has not been Ready long enough, autohealing replaces. */
const FailingStatuses: ReadonlySet<string> = new Set([
  "CrashLoopBackOff",
  "ErrorUnschedulable",
  "DataVolumeError",
  "ErrorPvcNotFound",
  "ErrImagePull",
  "ImagePullBackOff",
]);

function minFailingToStartMs(autohealing: VirtualMachinePoolAutohealingStrategy): number {
  const duration = autohealing.minFailingToStartDuration;
  return duration ? parseGoDuration(duration) : DefaultMinFailingToStartMs;
}

/** The VM's Ready condition has been False (since its lastProbeTime) for at least the minimum. */
function failingLongEnough(
  vm: StoredVM,
  autohealing: VirtualMachinePoolAutohealingStrategy,
  now: number,
): boolean {
  const ready = findCondition(vm.status, "Ready");
  if (ready?.status !== "False") return false;
  const since = Date.parse(ready.lastProbeTime ?? "");
  // Go's zero time, for a condition without a probe time, is long enough ago.
  return now - (Number.isNaN(since) ? 0 : since) >= minFailingToStartMs(autohealing);
}

/** filterFailingVMsToStart: VMs that failed to start too often in a row, or kept failing too long. */
export function filterFailingVMs(
  vms: readonly StoredVM[],
  autohealing: VirtualMachinePoolAutohealingStrategy,
  now: number,
): StoredVM[] {
  const threshold = autohealing.startUpFailureThreshold ?? DefaultStartUpFailureThreshold;
  return vms.filter(
    (vm) =>
      (vm.status?.startFailure?.consecutiveFailCount ?? 0) >= threshold ||
      (FailingStatuses.has(vm.status?.printableStatus ?? "") && failingLongEnough(vm, autohealing, now)),
  );
}

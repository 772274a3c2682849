import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
  VirtualMachineInstanceMigrationState,
} from "../../pkg/api/generated/v1.js";
import { parseTimestamp } from "../common/timestamps.js";

// What the benchmark reads in the objects kubectl answers, apart from talking to the cluster.

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface Node {
  metadata?: { name?: string };
  status?: { conditions?: Condition[] };
}

export interface Pod {
  metadata?: { deletionTimestamp?: string };
  status?: { phase?: string };
}

export function readyNodes(nodes: readonly Node[]): string[] {
  return nodes
    .filter((node) => node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .map((node) => node.metadata?.name ?? "?");
}

const conditionText = (c: Condition): string => {
  const why = [c.reason, c.message].filter(Boolean).join(": ");
  return `${c.type}=${c.status}${why ? ` (${why})` : ""}`;
};

/**
 * Why a migration cannot start now, or undefined when it can: the VMI runs, is LiveMigratable, no
 * migration is in flight, and the last one's source pod has finished (one launcher pod runs).
 */
export function notMigratableReason(
  vmi: VirtualMachineInstance,
  launcherPods: readonly Pod[],
): string | undefined {
  const phase = vmi.status?.phase;
  if (phase !== "Running") return `phase ${phase || "unset"}`;
  const migratable = vmi.status?.conditions?.find((c) => c.type === "LiveMigratable");
  if (!migratable) return "no LiveMigratable condition yet";
  if (migratable.status !== "True") return conditionText(migratable);
  const state = vmi.status?.migrationState;
  if (state && !state.completed && !state.failed) return `migration ${state.migrationUid ?? ""} in flight`;
  const running = launcherPods.filter(
    (pod) => pod.status?.phase === "Running" && !pod.metadata?.deletionTimestamp,
  );
  if (running.length !== 1)
    return `${running.length} virt-launcher pods running (the last migration's source still going?)`;
  return undefined;
}

/** The newest of `migrations` whose name is not in `known`: the one `virtctl migrate` has just created. */
export function newMigration(
  migrations: readonly VirtualMachineInstanceMigration[],
  known: ReadonlySet<string>,
): VirtualMachineInstanceMigration | undefined {
  const created = (m: VirtualMachineInstanceMigration): number =>
    parseTimestamp(m.metadata?.creationTimestamp) ?? 0;
  return migrations
    .filter((m) => m.metadata?.name && !known.has(m.metadata.name))
    .sort((a, b) => created(a) - created(b) || (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""))
    .at(-1);
}

/**
 * The migration's state: the VMI's while it still describes this migration, else the copy the
 * controller keeps in the migration's status once it is final.
 */
export function migrationStateOf(
  vmim: VirtualMachineInstanceMigration,
  vmi: VirtualMachineInstance | undefined,
): VirtualMachineInstanceMigrationState | undefined {
  const fromVmi = vmi?.status?.migrationState;
  if (fromVmi && fromVmi.migrationUid === vmim.metadata?.uid) return fromVmi;
  return vmim.status?.migrationState ?? undefined;
}

/** What to say when a migration did not succeed: its phase and, if known, why. */
export function migrationFailure(
  vmim: VirtualMachineInstanceMigration,
  vmi: VirtualMachineInstance | undefined,
  what: string,
): string {
  const name = vmim.metadata?.name ?? "?";
  const reason = migrationStateOf(vmim, vmi)?.failureReason;
  const conditions = (vmim.status?.conditions ?? []).filter((c) => c.status === "True").map(conditionText);
  return [
    `migration ${name} ${what} (phase ${vmim.status?.phase || "unset"})`,
    reason
      ? `the VMI's migrationState.failureReason: ${reason}`
      : "the VMI gives no migrationState.failureReason",
    ...(conditions.length > 0 ? [`conditions: ${conditions.join(", ")}`] : []),
  ].join("; ");
}

// Migrations (upstream migration_metrics.go and migrationstats_collector.go): how long from creation each
// phase was reached, observed on phase changes, and on every scrape how many migrations are in which phase.
import { Histogram, type Registry } from "prom-client";
import type { VirtualMachineInstanceMigration } from "../../../api/generated/v1.js";
import type { CollectorResult, MetricDescription } from "../common/collector.js";
import { PHASE_TRANSITION_TIME_BUCKETS, secondsBetween } from "./transition-time.js";

type VMIM = Pick<VirtualMachineInstanceMigration, "metadata" | "spec" | "status">;

export const pendingMigrations: MetricDescription = {
  name: "kubevirt_vmi_migrations_in_pending_phase",
  help: "Number of current pending migrations.",
  type: "gauge",
};
export const schedulingMigrations: MetricDescription = {
  name: "kubevirt_vmi_migrations_in_scheduling_phase",
  help: "Number of current scheduling migrations.",
  type: "gauge",
};
export const unsetMigrations: MetricDescription = {
  name: "kubevirt_vmi_migrations_in_unset_phase",
  help: "Number of current unset migrations. These are pending items the virt-controller hasn’t processed yet from the queue.",
  type: "gauge",
};
export const runningMigrations: MetricDescription = {
  name: "kubevirt_vmi_migrations_in_running_phase",
  help: "Number of current running migrations.",
  type: "gauge",
};
export const succeededMigration: MetricDescription = {
  name: "kubevirt_vmi_migration_succeeded",
  help: "Indicates if the VMI migration succeeded.",
  type: "gauge",
};
export const failedMigration: MetricDescription = {
  name: "kubevirt_vmi_migration_failed",
  help: "Indicates if the VMI migration failed.",
  type: "gauge",
};

export const MIGRATION_STATS_METRICS = [
  pendingMigrations,
  schedulingMigrations,
  unsetMigrations,
  runningMigrations,
  succeededMigration,
  failedMigration,
];

// Every phase between scheduled and done counts as running.
const RUNNING_PHASES = new Set(["Running", "Scheduled", "PreparingTarget", "TargetReady"]);

/** The counts by phase, and one series per finished migration: succeeded, or failed for any other phase. */
export function migrationStats(migrations: readonly VMIM[]): CollectorResult[] {
  let pending = 0;
  let scheduling = 0;
  let unset = 0;
  let running = 0;
  const finished: CollectorResult[] = [];
  for (const migration of migrations) {
    const phase = migration.status?.phase ?? "";
    if (phase === "Pending") pending++;
    else if (phase === "Scheduling") scheduling++;
    else if (phase === "") unset++;
    else if (RUNNING_PHASES.has(phase)) running++;
    else {
      const labels = {
        vmi: migration.spec?.vmiName ?? "",
        vmim: migration.metadata?.name ?? "",
        namespace: migration.metadata?.namespace ?? "",
      };
      finished.push({
        metric: phase === "Succeeded" ? succeededMigration : failedMigration,
        labels,
        value: 1,
      });
    }
  }
  return [
    ...finished,
    { metric: pendingMigrations, value: pending },
    { metric: schedulingMigrations, value: scheduling },
    { metric: unsetMigrations, value: unset },
    { metric: runningMigrations, value: running },
  ];
}

/** Seconds from the migration's creation to when it entered its current phase. */
export function migrationSecondsFromCreation(migration: VMIM): number | undefined {
  const phase = migration.status?.phase ?? "";
  const entered = migration.status?.phaseTransitionTimestamps?.find((entry) => entry.phase === phase);
  return secondsBetween(migration.metadata?.creationTimestamp, entered?.phaseTransitionTimestamp);
}

export class MigrationMetrics {
  private readonly fromCreation: Histogram<"phase">;

  constructor(registry: Registry) {
    this.fromCreation = new Histogram({
      name: "kubevirt_vmi_migration_phase_transition_time_from_creation_seconds",
      help: "Histogram of VM migration phase transitions duration from creation time in seconds.",
      labelNames: ["phase"],
      buckets: PHASE_TRANSITION_TIME_BUCKETS,
      registers: [registry],
    });
  }

  /** The migration informer's update: observes only a change of phase whose timestamps are known. */
  migrationUpdated(oldMigration: VMIM, newMigration: VMIM): void {
    const phase = newMigration.status?.phase ?? "";
    if (phase === (oldMigration.status?.phase ?? "")) return;
    const seconds = migrationSecondsFromCreation(newMigration);
    if (seconds !== undefined) this.fromCreation.observe({ phase }, seconds);
  }
}

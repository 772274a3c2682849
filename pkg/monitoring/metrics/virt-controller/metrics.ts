// virt-controller's registry (upstream pkg/monitoring/metrics/virt-controller): its own state, the rest client,
// the phase transition histograms fed by the leader's informers, and the collectors over the leader's caches.
// A replica that does not lead has no caches: its collectors report nothing, as upstream's empty stores do.
import { Registry } from "prom-client";
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from "../../../api/generated/v1.js";
import type { Logger } from "../../../controller/log.js";
import { Collector } from "../common/collector.js";
import { RestClientMetrics } from "../common/client.js";
import { ComponentMetrics } from "./component.js";
import { MIGRATION_STATS_METRICS, MigrationMetrics, migrationStats } from "./migration.js";
import { PerfScaleMetrics } from "./perfscale.js";
import { VMI_STATS_METRICS, vmiStats, type VMIStatsLookups } from "./vmi-stats.js";

/** The update handlers of an informer, as far as the histograms need them. */
interface UpdateEvents<T> {
  addEventHandler(handlers: { update?(oldObj: T, newObj: T): void }): () => void;
}

/** The leader's caches the collectors read on each scrape. */
export interface ControllerCaches extends VMIStatsLookups {
  vmis(): readonly VirtualMachineInstance[];
  migrations(): readonly VirtualMachineInstanceMigration[];
}

export class ControllerMetrics {
  readonly registry = new Registry();
  readonly restClient = new RestClientMetrics(this.registry);
  readonly component = new ComponentMetrics(this.registry);
  private readonly perfscale = new PerfScaleMetrics(this.registry);
  private readonly migrationTimes = new MigrationMetrics(this.registry);
  private caches: ControllerCaches | undefined;

  constructor(logger?: Logger) {
    const onError = (error: unknown) => logger?.warn({ err: error }, "metrics collection failed");
    new Collector(
      this.registry,
      MIGRATION_STATS_METRICS,
      () => migrationStats(this.caches?.migrations() ?? []),
      onError,
    );
    new Collector(
      this.registry,
      VMI_STATS_METRICS,
      () => (this.caches ? vmiStats(this.caches.vmis(), this.caches) : []),
      onError,
    );
  }

  /**
   * While leading: the histograms observe these informers' updates and the collectors read `caches`. The
   * returned function detaches them when leadership ends.
   */
  lead(
    caches: ControllerCaches,
    vmis: UpdateEvents<VirtualMachineInstance>,
    migrations: UpdateEvents<VirtualMachineInstanceMigration>,
  ): () => void {
    this.caches = caches;
    const stopVMIs = vmis.addEventHandler({
      update: (oldVMI, newVMI) => this.perfscale.vmiUpdated(oldVMI, newVMI),
    });
    const stopMigrations = migrations.addEventHandler({
      update: (oldMigration, newMigration) =>
        this.migrationTimes.migrationUpdated(oldMigration, newMigration),
    });
    return () => {
      stopVMIs();
      stopMigrations();
      if (this.caches === caches) this.caches = undefined;
    };
  }
}

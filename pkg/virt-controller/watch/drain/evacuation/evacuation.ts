// The evacuation controller (upstream's watch/drain/evacuation/evacuation.go), keyed by node: for the
// VMIs the eviction interceptor marked with status.evacuationNodeName (or every VMI of a node tainted
// with the migrations' nodeDrainTaintKey, upstream's deprecated path) whose eviction strategy wants a
// live migration, it creates one VirtualMachineInstanceMigration each, unless one is unfinished already,
// within parallelMigrationsPerCluster and parallelOutboundMigrationsPerNode. Creations are guarded by
// expectations on the node, observed when a migration carrying the node's annotation shows up.
import type { Pod } from "../../../../api/core/v1/pod.js";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { systemClock, type Clock } from "../../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../../controller/client.js";
import type { EventRecorder } from "../../../../controller/events.js";
import { ControllerExpectations } from "../../../../controller/expectations.js";
import { NamespaceIndex, NodeIndex } from "../../../../controller/indexers.js";
import type { Informer } from "../../../../controller/informer.js";
import { defaultLogger, type Logger } from "../../../../controller/log.js";
import type { KubeObject } from "../../../../controller/object.js";
import type { StoredVMI } from "../../../../controller/resources.js";
import { WorkQueue, type SyncResult } from "../../../../controller/workqueue.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { NodeDrainTaintDefaultKey } from "../../../../virt-config/defaults.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { errorMessage } from "../../../../util/error-message.js";
import { Reporter } from "../../common/reporter.js";
import {
  EvacuationMigrationAnnotation,
  isMigrationFinal,
  virtualMachineInstanceMigrationsGVR,
  vmiKeyOf,
  type StoredVMIM,
} from "../../migration/vmim.js";
import {
  freeSpots,
  runningMigrations,
  selectWithinLimits,
  splitCandidates,
  vmisToEvacuate,
  type TaintedNode,
} from "./evacuation-candidates.js";
import { evacuationMigration } from "./evacuation-migration.js";

/** Upstream's event reasons. */
export const FailedCreateVirtualMachineInstanceMigrationReason = "FailedCreate";
export const SuccessfulCreateVirtualMachineInstanceMigrationReason = "SuccessfulCreate";

export interface EvacuationControllerDeps {
  client: KubeClient;
  /** Indexed by NodeIndex (vmiByNode). */
  vmis: Informer<StoredVMI>;
  migrations: Informer<StoredVMIM>;
  nodes: Informer<KubeObject>;
  pods: Informer<Pod>;
  clusterConfig: () => ClusterConfig;
  recorder: Pick<EventRecorder, "event">;
  clock?: Clock;
  logger?: Logger;
}

export class EvacuationController {
  readonly queue: WorkQueue<string>;
  readonly expectations = new ControllerExpectations("evacuation-migrations");
  private readonly migrationClient: ResourceClient<StoredVMIM>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly reporter: Reporter;

  constructor(private readonly deps: EvacuationControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-evacuation", logger: this.logger });
    this.migrationClient = deps.client.resource<StoredVMIM>(virtualMachineInstanceMigrationsGVR);
    deps.nodes.onChange((node) => this.queue.add(node.metadata?.name ?? ""));
    deps.vmis.onChange((vmi) => this.enqueueNodeOf(vmi));
    deps.migrations.addEventHandler({
      add: (migration) => this.onMigrationAdd(migration),
      update: (_old, migration) => this.enqueueNodeOfMigration(migration),
      delete: (migration) => this.enqueueNodeOfMigration(migration),
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting evacuation controller.");
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  // Event handlers turn objects into node names.

  private enqueueNodeOf(vmi: VirtualMachineInstance): void {
    const node = vmi.status?.nodeName ?? "";
    if (node !== "") this.queue.add(node);
  }

  private enqueueNodeOfMigration(migration: StoredVMIM): void {
    const vmi = this.deps.vmis.get(vmiKeyOf(migration));
    if (vmi) this.enqueueNodeOf(vmi);
  }

  private onMigrationAdd(migration: StoredVMIM): void {
    // Only migrations this controller made carry the node, and count against its expectations.
    const node = migration.metadata?.annotations?.[EvacuationMigrationAnnotation];
    if (node === undefined) {
      this.enqueueNodeOfMigration(migration);
      return;
    }
    this.expectations.creationObserved(node);
    if (node !== "") this.queue.add(node);
  }

  // One node.

  async execute(nodeName: string): Promise<SyncResult> {
    const node = this.deps.nodes.get(nodeName) as TaintedNode | undefined;
    if (!node) {
      this.expectations.deleteExpectations(nodeName);
      return;
    }
    if (!this.expectations.satisfiedExpectations(nodeName)) return;
    const vmisOnNode = this.deps.vmis.byIndex(NodeIndex, nodeName);
    const unfinished = this.deps.migrations.list().filter((migration) => !isMigrationFinal(migration));
    return this.sync(node, vmisOnNode, unfinished);
  }

  private async sync(
    node: TaintedNode,
    vmisOnNode: readonly StoredVMI[],
    unfinished: readonly StoredVMIM[],
  ): Promise<SyncResult> {
    const config = this.deps.clusterConfig();
    const migrations = config.getConfig().migrations;
    const nodeName = node.metadata?.name ?? "";
    const taintKey = migrations?.nodeDrainTaintKey ?? NodeDrainTaintDefaultKey;
    const toEvacuate = vmisToEvacuate(node, vmisOnNode, taintKey, this.clock.now());
    if (toEvacuate.length === 0) return;
    const candidates = splitCandidates(toEvacuate, unfinished, {
      strategyOf: (vmi) => vmi.spec.evictionStrategy ?? config.getEvictionStrategy(),
      podsIn: (namespace) => this.deps.pods.byIndex(NamespaceIndex, namespace),
    });
    if (candidates.migratable.length === 0 && candidates.nonMigratable.length === 0) return;
    const priorityQueue = config.isFeatureGateEnabled(FeatureGate.MigrationPriorityQueue);
    let selected = candidates.migratable;
    let requeue: SyncResult = undefined;
    if (!priorityQueue) {
      // With the priority queue, the migration controller holds migrations back instead.
      const spots = freeSpots(vmisOnNode, runningMigrations(unfinished), {
        parallelMigrationsPerCluster: migrations?.parallelMigrationsPerCluster ?? 5,
        parallelOutboundMigrationsPerNode: migrations?.parallelOutboundMigrationsPerNode ?? 2,
      });
      const selection = selectWithinLimits(candidates, spots);
      for (const vmi of selection.warned) {
        this.reporter.event(
          vmi,
          "Normal",
          FailedCreateVirtualMachineInstanceMigrationReason,
          "VirtualMachineInstance is not migrateable",
        );
      }
      if (selection.requeueAfterMs !== undefined) requeue = { requeueAfter: selection.requeueAfterMs };
      if (selection.selected.length === 0) return requeue;
      selected = selection.selected;
    }
    this.logger.info(
      {
        node: nodeName,
        migrations: unfinished.length,
        candidates: candidates.migratable.length,
        selected: selected.length,
      },
      "evacuating VMIs",
    );
    await this.createMigrations(nodeName, selected, priorityQueue);
    return requeue;
  }

  private async createMigrations(
    nodeName: string,
    vmis: readonly StoredVMI[],
    priorityQueue: boolean,
  ): Promise<void> {
    this.expectations.expectCreations(nodeName, vmis.length);
    const errors = await Promise.all(
      vmis.map(async (vmi) => {
        try {
          const created = await this.migrationClient.create(
            evacuationMigration(vmi, nodeName, priorityQueue),
          );
          this.reporter.event(
            vmi,
            "Normal",
            SuccessfulCreateVirtualMachineInstanceMigrationReason,
            `Created Migration ${created.metadata?.name ?? ""}`,
          );
          return undefined;
        } catch (err) {
          this.expectations.creationObserved(nodeName);
          this.reporter.event(
            vmi,
            "Warning",
            FailedCreateVirtualMachineInstanceMigrationReason,
            `Error creating a Migration: ${errorMessage(err)}`,
          );
          return err;
        }
      }),
    );
    const failed = errors.find((err) => err !== undefined);
    if (failed !== undefined) throw failed instanceof Error ? failed : new Error(String(failed));
  }
}

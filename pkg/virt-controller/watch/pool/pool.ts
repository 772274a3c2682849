// The VirtualMachinePool controller (upstream's watch/pool): keeps spec.replicas VMs named `<pool>-<index>`
// from spec.virtualMachineTemplate, each owned by the pool and held by its finalizer. It releases VMs
// that stop matching the selector (it never adopts), scales under expectations, rolls template changes
// out by its update strategy, replaces failing VMs when autohealing is on, prunes revisions nothing uses
// any more, and reports replicas, ready replicas, the selector and its conditions. A paused pool is
// neither scaled nor updated; a pool being deleted lets go of its VMs' finalizers, then of its own.
import type { PersistentVolumeClaim } from "../../../api/core/v1/persistentvolumeclaim.js";
import { isNotFound } from "../../../controller/api-error.js";
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient } from "../../../controller/client.js";
import {
  aggregateErrors,
  realVirtualMachineControl,
  VirtualMachineControllerRefManager,
} from "../../../controller/controller-ref-manager.js";
import type { EventRecorder } from "../../../controller/events.js";
import { BurstReplicas } from "../../../controller/expectations.js";
import { hasFinalizer } from "../../../controller/finalizers.js";
import { NamespaceIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { Selector } from "../../../controller/label-selector.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import { controllerRefOf, isBeingDeleted, keyOf } from "../../../controller/object.js";
import {
  controllerRevisionsGVR,
  type StoredVM,
  type StoredVMI,
  type StoredVMPool,
} from "../../../controller/resources.js";
import { SyncError } from "../../../controller/sync-error.js";
import { WorkQueue } from "../../../controller/workqueue.js";
import {
  VirtualMachinePoolControllerFinalizer,
  VirtualMachinePoolRevisionName,
} from "../../../util/constants.js";
import { errorMessage } from "../../../util/error-message.js";
import { controlleeHandlers, resolveControllerRef } from "../common/controllee-handlers.js";
import { objectLogFields, Reporter } from "../common/reporter.js";
import { PoolExpectations } from "./pool-expectations.js";
import { filterFailingVMs, isAutohealingEnabled, mathRandomInt, type RandomInt } from "./pool-policy.js";
import { PoolRevisions, type PoolRevision } from "./pool-revisions.js";
import { PoolScaler } from "./pool-scale.js";
import { poolStatusUpdate } from "./pool-status.js";
import { PoolUpdater } from "./pool-update.js";
import { PoolAPIVersion, PoolKind } from "./pool-vms.js";
import { PoolWrites } from "./pool-writes.js";

export const FailedRevisionPruningReason = "FailedRevisionPruning";

/** Upstream queues every pool change after this delay, so that a burst of changes makes one sync. */
export const DefaultEnqueueDelayMs = 1000;

export interface PoolControllerDeps {
  client: KubeClient;
  vms: Informer<StoredVM>;
  vmis: Informer<StoredVMI>;
  pools: Informer<StoredVMPool>;
  /** ControllerRevisions (shared with the VM controller, which reads other ones), indexed by ControllerUIDIndex. */
  revisions: Pick<Informer<PoolRevision>, "getByName" | "indexKeys" | "addEventHandler">;
  recorder: Pick<EventRecorder, "event">;
  /** Claims, for the VMs whose state a scale-in preserves (upstream's PVC store); absent: the apiserver. */
  pvcs?: Pick<Informer<PersistentVolumeClaim>, "getByName">;
  /** Creations or deletions per sync at most; default BurstReplicas. */
  burstReplicas?: number;
  clock?: Pick<Clock, "now">;
  logger?: Logger;
  /** Picks the Random order of scale-in and update. */
  random?: RandomInt;
  enqueueDelayMs?: number;
}

export class PoolController {
  readonly queue: WorkQueue<string>;
  readonly expectations = new PoolExpectations();
  private readonly clock: Pick<Clock, "now">;
  private readonly logger: Logger;
  private readonly reporter: Reporter;
  private readonly writes: PoolWrites;
  private readonly revisions: PoolRevisions;
  private readonly scaler: PoolScaler;
  private readonly updater: PoolUpdater;
  private readonly enqueueDelayMs: number;

  constructor(private readonly deps: PoolControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.enqueueDelayMs = deps.enqueueDelayMs ?? DefaultEnqueueDelayMs;
    const random = deps.random ?? mathRandomInt;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-pool", logger: this.logger });
    // virt-controller keeps no DataVolume informer here: those are read from the apiserver.
    const pvcs = deps.pvcs;
    this.writes = new PoolWrites(
      deps.client,
      this.reporter,
      pvcs ? { pvcs: async (namespace, name) => pvcs.getByName(namespace, name) } : {},
    );
    this.revisions = new PoolRevisions(
      deps.revisions,
      deps.client.resource<PoolRevision>(controllerRevisionsGVR),
      this.expectations,
    );
    this.scaler = new PoolScaler(
      this.writes,
      this.expectations,
      deps.vms,
      this.revisions,
      deps.burstReplicas ?? BurstReplicas,
      random,
    );
    this.updater = new PoolUpdater(
      this.writes,
      deps.vmis,
      this.revisions,
      (key, delayMs) => this.queue.addAfter(key, delayMs),
      random,
    );

    const resolvePool = (namespace: string, ref: Parameters<typeof resolveControllerRef>[3]) =>
      resolveControllerRef(deps.pools, PoolKind, namespace, ref);
    const enqueue = (pool: StoredVMPool) => this.enqueue(pool);
    deps.pools.onChange(enqueue);
    // A VM wakes the pool that controls it; orphans are nobody's business here.
    deps.vms.addEventHandler(
      controlleeHandlers<StoredVMPool, StoredVM>({
        resolve: resolvePool,
        expectations: this.expectations,
        enqueue,
      }),
    );
    // A new revision is the one ensure() expected.
    deps.revisions.addEventHandler({
      add: (revision) => {
        const pool = resolvePool(revision.metadata?.namespace ?? "", controllerRefOf(revision));
        if (!pool) return;
        this.expectations.creationObserved(keyOf(pool));
        enqueue(pool);
      },
      update: (_old, revision) => {
        const pool = resolvePool(revision.metadata?.namespace ?? "", controllerRefOf(revision));
        if (pool) enqueue(pool);
      },
    });
    // A VMI not started from its VM's current revision may need a proactive update.
    const onVMI = (vmi: StoredVMI) => {
      if (isBeingDeleted(vmi)) return;
      const namespace = vmi.metadata?.namespace ?? "";
      const vm = resolveControllerRef(deps.vms, "VirtualMachine", namespace, controllerRefOf(vmi));
      const pool = vm && resolvePool(namespace, controllerRefOf(vm));
      if (!vm || !pool) return;
      const vmRevision = vm.spec.template.metadata?.labels?.[VirtualMachinePoolRevisionName];
      const vmiRevision = vmi.metadata?.labels?.[VirtualMachinePoolRevisionName];
      if (vmRevision !== undefined && vmRevision === vmiRevision) return;
      enqueue(pool);
    };
    deps.vmis.addEventHandler({ add: onVMI, update: (_old, vmi) => onVMI(vmi) });
  }

  private enqueue(pool: StoredVMPool): void {
    this.queue.addAfter(keyOf(pool), this.enqueueDelayMs);
  }

  async run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting pool controller.");
    await this.queue.run(workers, (key) => this.execute(key), signal);
    this.logger.info("Stopping pool controller.");
  }

  /** One pool: release, heal, scale, update, prune, report; throws to retry with backoff. */
  async execute(key: string): Promise<void> {
    let pool = this.deps.pools.get(key);
    if (!pool) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const fields = objectLogFields(pool);
    let selector: Selector;
    try {
      selector = Selector.fromLabelSelector(pool.spec.selector);
    } catch (err) {
      this.logger.error({ ...fields, err }, "Invalid selector on pool, will not re-enqueue.");
      return;
    }
    if (!selector.matches(pool.spec.virtualMachineTemplate?.metadata?.labels)) {
      this.logger.error(fields, "Selector does not match template labels, will not re-enqueue.");
      return;
    }

    const vms = await this.releaseDetachedVMs(pool, selector);
    // Upstream heals before releasing, among every VM of the namespace; only the pool's own are its to replace.
    if (isAutohealingEnabled(pool)) await this.autoheal(key, pool, vms);
    if (!isBeingDeleted(pool)) pool = await this.writes.addPoolFinalizer(pool);

    let syncError: SyncError | undefined;
    if (this.expectations.satisfiedExpectations(key) && pool.spec.paused !== true && !isBeingDeleted(pool)) {
      const scale = await this.scaler.scale(key, pool, vms);
      syncError = scale.error;
      if (syncError) this.logger.error({ ...fields, err: syncError }, "Scaling the pool failed.");
      let updateStable = false;
      if (this.expectations.satisfiedExpectations(key) && scale.stable && !syncError) {
        const update = await this.updater.update(key, pool, vms);
        syncError = update.error;
        updateStable = update.stable;
      }
      if (this.expectations.satisfiedExpectations(key) && !syncError && scale.stable && updateStable) {
        syncError = await this.pruneRevisions(pool, vms);
      }
    } else if (isBeingDeleted(pool)) {
      await this.handlePoolDeletion(pool, selector);
      syncError = await this.pruneRevisions(pool, vms);
    }

    await this.updateStatus(pool, vms, syncError, selector);
    if (syncError) throw syncError;
  }

  /**
   * The namespace's VMs this pool owns once those that stopped matching are released. Nothing is adopted,
   * so the live recheck of the pool's deletion upstream builds for adoptions is never needed.
   */
  private async releaseDetachedVMs(pool: StoredVMPool, selector: Selector): Promise<StoredVM[]> {
    const namespace = pool.metadata?.namespace ?? "";
    const refs = new VirtualMachineControllerRefManager(
      realVirtualMachineControl(this.deps.client),
      pool,
      selector,
      { apiVersion: PoolAPIVersion, kind: PoolKind },
    );
    const { owned, errors } = await refs.releaseDetachedVirtualMachines(
      this.deps.vms.byIndex(NamespaceIndex, namespace),
    );
    const failure = aggregateErrors(errors);
    if (failure) throw failure;
    return owned;
  }

  /** autoHealFailingVMs: failing VMs are deleted, so that scaling replaces them. */
  private async autoheal(key: string, pool: StoredVMPool, vms: readonly StoredVM[]): Promise<void> {
    const failing = filterFailingVMs(vms, pool.spec.autohealing ?? {}, this.clock.now());
    try {
      await this.scaler.scaleIn(key, pool, failing, failing.length);
    } catch (err) {
      this.logger.error({ ...objectLogFields(pool), err }, "Failed to auto heal failing vms.");
      throw err;
    }
  }

  private async pruneRevisions(pool: StoredVMPool, vms: readonly StoredVM[]): Promise<SyncError | undefined> {
    try {
      await this.revisions.prune(pool, vms, (vm) => this.deps.vmis.get(keyOf(vm)));
      return undefined;
    } catch (err) {
      return new SyncError(
        `error while pruning vmpool revisions: ${errorMessage(err)}`,
        FailedRevisionPruningReason,
      );
    }
  }

  /** The VMs the selector matches (owned or not) let go of the pool finalizer, then the pool does. */
  private async handlePoolDeletion(pool: StoredVMPool, selector: Selector): Promise<void> {
    const vms = this.deps.vms
      .byIndex(NamespaceIndex, pool.metadata?.namespace ?? "")
      .filter(
        (vm) =>
          selector.matches(vm.metadata?.labels) && hasFinalizer(vm, VirtualMachinePoolControllerFinalizer),
      );
    let last: unknown;
    for (const vm of vms) {
      try {
        await this.writes.removeVMFinalizer(vm);
      } catch (err) {
        this.reporter.error(vm, err, "Failed to remove finalizer");
        last = err;
      }
    }
    if (last !== undefined) throw last;
    await this.writes.removePoolFinalizer(pool);
  }

  private async updateStatus(
    pool: StoredVMPool,
    vms: readonly StoredVM[],
    syncError: SyncError | undefined,
    selector: Selector,
  ): Promise<void> {
    const { status, events } = poolStatusUpdate(pool, vms, syncError, selector, this.clock.now());
    for (const { type, reason, message } of events) this.reporter.event(pool, type, reason, message);
    if (!status) return;
    try {
      await this.writes.pools.updateStatus({ ...structuredClone(pool), status });
    } catch (err) {
      // A pool whose deletion this sync finished is gone: there is nothing left to report on.
      if (!isNotFound(err)) throw err;
    }
  }
}

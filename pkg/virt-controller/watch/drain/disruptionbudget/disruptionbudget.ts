// The disruption-budget controller (upstream's watch/drain/disruptionbudget/disruptionbudget.go), keyed by
// VMI. Since KubeVirt v1.6 the virt-launcher eviction interceptor alone protects VMIs from evictions, so
// the PodDisruptionBudgets older releases kept per VMI (and per migration) only get in the way: this
// controller deletes every budget a VMI controls, whatever the VMI's state or eviction strategy, and
// those left behind by a VMI that is gone. Deletions are guarded by expectations on the VMI's key.
import type { Pod } from "../../../../api/core/v1/pod.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";
import { systemClock, type Clock } from "../../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../../controller/client.js";
import type { EventRecorder } from "../../../../controller/events.js";
import {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
} from "../../../../controller/expectations.js";
import { NamespaceIndex } from "../../../../controller/indexers.js";
import type { Informer } from "../../../../controller/informer.js";
import { defaultLogger, type Logger } from "../../../../controller/log.js";
import {
  controllerRefOf,
  isBeingDeleted,
  keyOf,
  splitKey,
  type KubeObject,
} from "../../../../controller/object.js";
import { podDisruptionBudgetsGVR, type StoredVMI } from "../../../../controller/resources.js";
import { WorkQueue, type SyncResult } from "../../../../controller/workqueue.js";
import { errorMessage } from "../../../../util/error-message.js";
import { Reporter } from "../../common/reporter.js";
import { vmiKeyOf, type StoredVMIM } from "../../migration/vmim.js";
import { controllingVMIKey, pdbsOwnedBy, vmiKeyOfRef, type PodDisruptionBudget } from "./vmi-owned-pdbs.js";

/** Upstream's event reasons. */
export const FailedDeletePodDisruptionBudgetReason = "FailedDelete";
export const SuccessfulDeletePodDisruptionBudgetReason = "SuccessfulDelete";

export interface DisruptionBudgetControllerDeps {
  client: KubeClient;
  vmis: Informer<StoredVMI>;
  /** Looked up by the always-present NamespaceIndex. */
  pdbs: Informer<PodDisruptionBudget>;
  pods: Informer<Pod>;
  migrations: Informer<StoredVMIM>;
  recorder: Pick<EventRecorder, "event">;
  clock?: Clock;
  logger?: Logger;
}

export class DisruptionBudgetController {
  readonly queue: WorkQueue<string>;
  readonly expectations: UIDTrackingControllerExpectations;
  private readonly pdbClient: ResourceClient<PodDisruptionBudget>;
  private readonly logger: Logger;
  private readonly reporter: Reporter;

  constructor(private readonly deps: DisruptionBudgetControllerDeps) {
    this.logger = deps.logger ?? defaultLogger;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.expectations = new UIDTrackingControllerExpectations(
      new ControllerExpectations("disruption-budgets", deps.clock ?? systemClock, this.logger),
      this.logger,
    );
    this.queue = new WorkQueue<string>({ name: "virt-controller-disruption-budget", logger: this.logger });
    this.pdbClient = deps.client.resource<PodDisruptionBudget>(podDisruptionBudgetsGVR);
    deps.vmis.onChange((vmi) => this.queue.add(keyOf(vmi)));
    deps.pdbs.addEventHandler({
      add: (pdb) => this.onPDBAdd(pdb),
      update: (old, pdb) => this.onPDBUpdate(old, pdb),
      delete: (pdb) => this.onPDBDelete(pdb),
    });
    // Upstream still wakes a VMI when its pods or migrations change, from the days it resized budgets
    // during migrations; kept so VMIs are re-checked as often as upstream re-checks them.
    deps.pods.addEventHandler({
      update: (_old, pod) => this.onPodOrMigrationUpdate(pod, controllingVMIKey(pod)),
    });
    deps.migrations.addEventHandler({
      update: (_old, migration) => this.onPodOrMigrationUpdate(migration, vmiKeyOf(migration)),
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting disruption budget controller.");
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  // Event handlers turn objects into VMI keys.

  private enqueue(vmiKey: string | undefined): void {
    if (vmiKey !== undefined) this.queue.add(vmiKey);
  }

  private onPodOrMigrationUpdate(obj: KubeObject, vmiKey: string | undefined): void {
    if (!isBeingDeleted(obj)) this.enqueue(vmiKey);
  }

  private onPDBAdd(pdb: PodDisruptionBudget): void {
    // After a restart a budget may first show up already being deleted: that is a deletion seen.
    if (isBeingDeleted(pdb)) {
      this.onPDBDelete(pdb);
      return;
    }
    this.enqueue(controllingVMIKey(pdb));
  }

  private onPDBUpdate(old: PodDisruptionBudget, pdb: PodDisruptionBudget): void {
    if (old.metadata?.resourceVersion === pdb.metadata?.resourceVersion) return;
    if (isBeingDeleted(pdb)) {
      // The deletionTimestamp is enough to count the deletion; the delete event then counts for nothing.
      this.onPDBDelete(pdb);
      // As upstream does, the owner the labels may have named before is woken as well.
      if (!semanticallyEqual(old.metadata?.labels, pdb.metadata?.labels)) this.onPDBDelete(old);
      return;
    }
    const oldRef = controllerRefOf(old);
    const ref = controllerRefOf(pdb);
    if (!semanticallyEqual(oldRef, ref)) this.enqueue(vmiKeyOfRef(old.metadata?.namespace ?? "", oldRef));
    this.enqueue(vmiKeyOfRef(pdb.metadata?.namespace ?? "", ref));
  }

  private onPDBDelete(pdb: PodDisruptionBudget): void {
    const vmiKey = controllingVMIKey(pdb);
    if (vmiKey === undefined) return;
    this.expectations.deletionObserved(vmiKey, keyOf(pdb));
    this.queue.add(vmiKey);
  }

  // One VMI.

  async execute(key: string): Promise<SyncResult> {
    if (!this.expectations.satisfiedExpectations(key)) return;
    const { namespace, name } = splitKey(key);
    const cached = this.deps.vmis.get(key);
    const owned = pdbsOwnedBy(name, this.deps.pdbs.byIndex(NamespaceIndex, namespace));
    const toDelete = owned.filter((pdb) => !isBeingDeleted(pdb));
    if (toDelete.length === 0) {
      // Nothing is pending: a VMI gone for good leaves no expectations behind.
      if (owned.length === 0 && !cached) this.expectations.deleteExpectations(key);
      return;
    }
    const vmi = cached ?? vmiReference(namespace, name);
    this.expectations.expectDeletions(key, toDelete.map(keyOf));
    let failure: unknown;
    for (const pdb of toDelete) {
      try {
        await this.deletePDB(key, pdb, vmi);
      } catch (err) {
        failure = err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  private async deletePDB(vmiKey: string, pdb: PodDisruptionBudget, vmi: KubeObject): Promise<void> {
    const pdbName = pdb.metadata?.name ?? "";
    try {
      await this.pdbClient.delete(pdb.metadata?.namespace ?? "", pdbName);
    } catch (err) {
      this.expectations.deletionObserved(vmiKey, keyOf(pdb));
      this.reporter.event(
        vmi,
        "Warning",
        FailedDeletePodDisruptionBudgetReason,
        `Error deleting the PodDisruptionBudget ${pdbName}: ${errorMessage(err)}`,
      );
      throw err;
    }
    this.reporter.event(
      vmi,
      "Normal",
      SuccessfulDeletePodDisruptionBudgetReason,
      `Deleted PodDisruptionBudget ${pdbName}`,
    );
  }
}

/** What events name when the VMI is no longer cached: upstream records them on a bare reference. */
function vmiReference(namespace: string, name: string): KubeObject {
  return { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstance", metadata: { namespace, name } };
}

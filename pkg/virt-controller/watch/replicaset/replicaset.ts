// The VirtualMachineInstanceReplicaSet controller (upstream's watch/replicaset): keeps spec.replicas VMIs
// alive from spec.template, adopting matching orphans and releasing VMIs that stop matching; finished
// VMIs are deleted and replaced. Creations and deletions are guarded by expectations, so a cache that
// lags behind, or a restarted controller, never makes a duplicate. A paused replica set is not scaled.
// The status reports alive and ready VMIs, the selector for the scale subresource, and conditions.
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import {
  aggregateErrors,
  realVirtualMachineControl,
  recheckDeletionTimestamp,
  VirtualMachineControllerRefManager,
} from "../../../controller/controller-ref-manager.js";
import type { EventRecorder } from "../../../controller/events.js";
import {
  BurstReplicas,
  ControllerExpectations,
  UIDTrackingControllerExpectations,
} from "../../../controller/expectations.js";
import { NamespaceIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { Selector } from "../../../controller/label-selector.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import { isBeingDeleted, keyOf } from "../../../controller/object.js";
import {
  virtualMachineInstanceReplicaSetsGVR,
  virtualMachineInstancesGVR,
  type StoredVMI,
  type StoredVMIRS,
} from "../../../controller/resources.js";
import { WorkQueue } from "../../../controller/workqueue.js";
import { KubeVirtAPIVersion } from "../../../util/constants.js";
import { errorMessage } from "../../../util/error-message.js";
import { observedLatestApiVersion, withLatestApiVersion } from "../common/api-version.js";
import { controlleeHandlers, resolveControllerRef } from "../common/controllee-handlers.js";
import {
  FailedCreateVirtualMachineReason,
  FailedDeleteVirtualMachineReason,
  SuccessfulCreateVirtualMachineReason,
  SuccessfulDeleteVirtualMachineReason,
} from "../common/events.js";
import { objectLogFields, Reporter } from "../common/reporter.js";
import { replicaSetStatusUpdate } from "./replicaset-status.js";
import {
  calcDiff,
  filterActiveVMIs,
  filterFinishedVMIs,
  filterUnknownVMIs,
  ReplicaSetKind,
  vmiFromTemplate,
} from "./replicaset-vmis.js";

export const SuccessfulPausedReplicaSetReason = "SuccessfulPaused";
export const SuccessfulResumedReplicaSetReason = "SuccessfulResumed";

export interface ReplicaSetControllerDeps {
  client: KubeClient;
  vmis: Informer<StoredVMI>;
  replicaSets: Informer<StoredVMIRS>;
  recorder: Pick<EventRecorder, "event">;
  /** Creations or deletions per sync at most; default BurstReplicas. */
  burstReplicas?: number;
  clock?: Pick<Clock, "now">;
  logger?: Logger;
}

/** How one deletion is told: scaling down and cleaning up finished VMIs word it differently. */
interface DeletionWording {
  failed: (name: string, err: unknown) => string;
  deleted: (uid: string) => string;
}

const scaleDownWording: DeletionWording = {
  failed: (name, err) => `Error deleting virtual machine instance ${name}: ${errorMessage(err)}`,
  deleted: (uid) => `Stopped the virtual machine by deleting the virtual machine instance ${uid}`,
};

const finishedWording: DeletionWording = {
  failed: (name, err) => `Error deleting finished virtual machine ${name}: ${errorMessage(err)}`,
  deleted: (uid) => `Deleted finished virtual machine: ${uid}`,
};

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

export class ReplicaSetController {
  readonly queue: WorkQueue<string>;
  readonly expectations = new UIDTrackingControllerExpectations(new ControllerExpectations("replicasets"));
  private readonly rsClient: ResourceClient<StoredVMIRS>;
  private readonly vmiClient: ResourceClient<StoredVMI>;
  private readonly burstReplicas: number;
  private readonly clock: Pick<Clock, "now">;
  private readonly logger: Logger;
  private readonly reporter: Reporter;

  constructor(private readonly deps: ReplicaSetControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.burstReplicas = deps.burstReplicas ?? BurstReplicas;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-replicaset", logger: this.logger });
    this.rsClient = deps.client.resource<StoredVMIRS>(virtualMachineInstanceReplicaSetsGVR);
    this.vmiClient = deps.client.resource<StoredVMI>(virtualMachineInstancesGVR);
    deps.replicaSets.onChange((rs) => this.queue.add(keyOf(rs)));
    // A VMI wakes the replica set that controls it; an orphan every one that selects it.
    deps.vmis.addEventHandler(
      controlleeHandlers<StoredVMIRS, StoredVMI>({
        resolve: (namespace, ref) => resolveControllerRef(deps.replicaSets, ReplicaSetKind, namespace, ref),
        expectations: this.expectations,
        enqueue: (rs) => this.queue.add(keyOf(rs)),
        // Nobody waits for orphans: no creation is observed.
        onOrphan: (vmi) => {
          for (const rs of this.matchingReplicaSets(vmi)) this.queue.add(keyOf(rs));
        },
      }),
    );
  }

  async run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting VirtualMachineInstanceReplicaSet controller.");
    await this.queue.run(workers, (key) => this.execute(key), signal);
    this.logger.info("Stopping VirtualMachineInstanceReplicaSet controller.");
  }

  private matchingReplicaSets(vmi: StoredVMI): StoredVMIRS[] {
    const namespace = vmi.metadata?.namespace ?? "";
    return this.deps.replicaSets.byIndex(NamespaceIndex, namespace).filter((rs) => {
      try {
        return Selector.fromLabelSelector(rs.spec.selector).matches(vmi.metadata?.labels);
      } catch (err) {
        this.logger.error({ ...objectLogFields(rs), err }, "Failed to parse label selector from replicaset.");
        return false;
      }
    });
  }

  /** One replica set: claim its VMIs, scale, clean up finished ones, report; throws to retry with backoff. */
  async execute(key: string): Promise<void> {
    const rs = this.deps.replicaSets.get(key);
    if (!rs) {
      // Nothing to clean up: a replica set of the same name can always be made again.
      this.expectations.deleteExpectations(key);
      return;
    }
    const fields = objectLogFields(rs);
    // Writing the object once stores it in the current API version.
    if (!observedLatestApiVersion(rs)) {
      await this.rsClient.update(withLatestApiVersion(rs));
      return;
    }
    const templateLabels = rs.spec.template?.metadata?.labels ?? {};
    if (!rs.spec.template || !rs.spec.selector || Object.keys(templateLabels).length === 0) {
      this.logger.error(fields, "Invalid controller spec, will not re-enqueue.");
      return;
    }
    let selector: Selector;
    try {
      selector = Selector.fromLabelSelector(rs.spec.selector);
    } catch (err) {
      this.logger.error({ ...fields, err }, "Invalid selector on replicaset, will not re-enqueue.");
      return;
    }
    if (!selector.matches(templateLabels)) {
      this.logger.error(fields, "Selector does not match template labels, will not re-enqueue.");
      return;
    }

    const needsSync = this.expectations.satisfiedExpectations(key);
    const vmis = await this.claimVMIs(rs, selector);
    const finished = [...filterFinishedVMIs(vmis), ...filterUnknownVMIs(vmis)];
    const active = filterActiveVMIs(vmis);

    let scaleError: Error | undefined;
    // Until our own creations and deletions show in the cache, counting VMIs could make duplicates.
    if (needsSync && rs.spec.paused !== true && !isBeingDeleted(rs)) {
      scaleError = await this.scale(key, rs, active);
      if (finished.length > 0 && !scaleError) scaleError = await this.cleanFinishedVMIs(key, rs, finished);
    }
    if (scaleError) this.logger.error({ ...fields, err: scaleError }, "Scaling the replicaset failed.");
    try {
      await this.updateStatus(rs, active, scaleError, selector);
    } catch (err) {
      // A conflict means the replica set changed, and that change queues it again.
      this.logger.error({ ...fields, err }, "Updating the replicaset status failed.");
    }
    if (scaleError) throw scaleError;
  }

  /** The namespace's VMIs this replica set owns once matching orphans are adopted and strays released. */
  private async claimVMIs(rs: StoredVMIRS, selector: Selector): Promise<StoredVMI[]> {
    const namespace = rs.metadata?.namespace ?? "";
    const name = rs.metadata?.name ?? "";
    // Adopting needs a live read: the cache may not show yet that the replica set is going away.
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.rsClient.get(namespace, name);
      if (fresh.metadata?.uid !== rs.metadata?.uid) {
        throw new Error(
          `original ReplicaSet ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid ?? ""}, wanted ${rs.metadata?.uid ?? ""}`,
        );
      }
      return fresh;
    });
    const refs = new VirtualMachineControllerRefManager(
      realVirtualMachineControl(this.deps.client),
      rs,
      selector,
      { apiVersion: KubeVirtAPIVersion, kind: ReplicaSetKind },
      canAdopt,
    );
    const { claimed, errors } = await refs.claimVirtualMachineInstances(
      this.deps.vmis.byIndex(NamespaceIndex, namespace),
    );
    const failure = aggregateErrors(errors);
    if (failure) throw failure;
    return claimed;
  }

  /** Creates or deletes at most burstReplicas VMIs toward spec.replicas; answers the first failure. */
  private async scale(key: string, rs: StoredVMIRS, vmis: StoredVMI[]): Promise<Error | undefined> {
    const diff = calcDiff(rs, vmis);
    if (diff === 0) return undefined;
    // Bounded, so that one large replica set cannot flood the apiserver.
    const count = Math.min(Math.abs(diff), this.burstReplicas);
    if (diff > 0) {
      // Upstream's simple choice: the first VMIs in the cache's order.
      return this.deleteVMIs(key, rs, vmis.slice(0, count), scaleDownWording);
    }
    this.expectations.expectCreations(key, count);
    const vmi = vmiFromTemplate(rs);
    const errors = await Promise.all(Array.from({ length: count }, () => this.createVMI(key, rs, vmi)));
    return errors.find((err) => err !== undefined);
  }

  private async createVMI(key: string, rs: StoredVMIRS, vmi: StoredVMI): Promise<Error | undefined> {
    try {
      const created = await this.vmiClient.create(vmi);
      this.reporter.event(
        rs,
        "Normal",
        SuccessfulCreateVirtualMachineReason,
        `Started the virtual machine by creating the new virtual machine instance ${created.metadata?.name ?? ""}`,
      );
      return undefined;
    } catch (err) {
      // A creation the server refused will never be observed.
      this.expectations.creationObserved(key);
      this.reporter.event(
        rs,
        "Warning",
        FailedCreateVirtualMachineReason,
        `Error creating virtual machine instance: ${errorMessage(err)}`,
      );
      return asError(err);
    }
  }

  /** cleanFinishedVmis: finished VMIs go, burstReplicas at a time, so that scaling replaces them. */
  private cleanFinishedVMIs(key: string, rs: StoredVMIRS, vmis: StoredVMI[]): Promise<Error | undefined> {
    return this.deleteVMIs(key, rs, vmis.slice(0, this.burstReplicas), finishedWording);
  }

  private async deleteVMIs(
    key: string,
    rs: StoredVMIRS,
    candidates: StoredVMI[],
    wording: DeletionWording,
  ): Promise<Error | undefined> {
    this.expectations.expectDeletions(key, candidates.map(keyOf));
    const errors = await Promise.all(
      candidates.map(async (vmi) => {
        const name = vmi.metadata?.name ?? "";
        try {
          await this.vmiClient.delete(vmi.metadata?.namespace ?? "", name);
        } catch (err) {
          // A deletion the server refused will never be observed.
          this.expectations.deletionObserved(key, keyOf(vmi));
          this.reporter.event(rs, "Warning", FailedDeleteVirtualMachineReason, wording.failed(name, err));
          return asError(err);
        }
        this.reporter.event(
          rs,
          "Normal",
          SuccessfulDeleteVirtualMachineReason,
          wording.deleted(vmi.metadata?.uid ?? ""),
        );
        return undefined;
      }),
    );
    return errors.find((err) => err !== undefined);
  }

  private async updateStatus(
    rs: StoredVMIRS,
    active: readonly StoredVMI[],
    scaleError: Error | undefined,
    selector: Selector,
  ): Promise<void> {
    const update = replicaSetStatusUpdate(rs, active, scaleError, selector, this.clock.now());
    if (!update) return;
    await this.rsClient.updateStatus({ ...structuredClone(rs), status: update.status });
    if (!update.pausedChanged) return;
    if (rs.spec.paused === true)
      this.reporter.event(rs, "Normal", SuccessfulPausedReplicaSetReason, "Paused");
    else this.reporter.event(rs, "Normal", SuccessfulResumedReplicaSetReason, "Resumed");
  }
}

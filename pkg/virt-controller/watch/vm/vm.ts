// The VM controller (upstream's watch/vm): makes a VM's VMI exist or not as its run strategy and state
// change requests say, creating it from the template and deleting it to stop, and reports the VM's
// status (printableStatus, ready, created, conditions, generations). VMI creations and deletions are
// guarded by expectations, so a cache that lags behind never causes a second VMI.
import { isNotFound } from "../../../controller/api-error.js";
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import type { EventRecorder } from "../../../controller/events.js";
import {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
} from "../../../controller/expectations.js";
import type { Informer } from "../../../controller/informer.js";
import type { PersistentVolumeClaim } from "../../../api/core/v1/persistentvolumeclaim.js";
import { pvcNameFromVirtVolume } from "../../../storage/types/pvc.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import { controllerRefOf, keyOf, type OwnerReference, isBeingDeleted } from "../../../controller/object.js";
import { NamespaceIndex } from "../../../controller/indexers.js";
import { WorkQueue, type SyncResult } from "../../../controller/workqueue.js";
import { jsonEqual } from "../common/equality.js";
import type { ClusterConfig } from "../../../virt-config/cluster-config.js";
import type { VirtualMachine, VirtualMachineSpec } from "../../../api/generated/v1.js";
import type { VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";
import { OrphanDependentsFinalizer, VirtualMachineControllerFinalizer } from "../../../util/constants.js";
import {
  toStored,
  virtualMachineInstancesGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
} from "../../../controller/resources.js";
import { observedLatestApiVersion, withLatestApiVersion } from "../common/api-version.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { isControlledBy } from "../common/pod-state.js";
import { Reporter } from "../common/reporter.js";
import {
  FailedCreateVirtualMachineReason,
  FailedDeleteVirtualMachineReason,
  SuccessfulCreateVirtualMachineReason,
  SuccessfulDeleteVirtualMachineReason,
} from "../common/events.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import { isFinal, isMarkedForDeletion, isWaitingForSync } from "../../../controller/vmi-phase.js";
import { runStrategyOf } from "../../../api/run-strategy.js";
import { ControllerUIDIndex } from "../../../controller/indexers.js";
import { lastRevisionSpec, type ControllerRevision } from "./vm-revision.js";
import { isRestartRequired } from "./vm-restart-required.js";
import { decideRunStrategyAction, type RunStrategyAction } from "./vm-run-strategy.js";
import { vmiToStart } from "./vm-setup.js";
import { DataVolumeTemplates, ImmediateDataVolumeCreationAnnotation } from "./vm-datavolumes.js";
import { InstancetypeVMHandler } from "../../../instancetype/controller/vm/controller.js";
import { cachedSources } from "../../../instancetype/find/client.js";
import { instancetypeCaches, synchronizerError, type InstancetypeInformers } from "./vm-instancetype.js";
import { computeVMStatus } from "./vm-status.js";
import { VMWrites } from "./vm-writes.js";
import {
  FailedUpdateErrorReason,
  HotplugVolumeErrorReason,
  passVolumeRequestsToVMI,
  subresourceVolumeHotplug,
  templateWithVolumeRequests,
  type VMIVolumeHotplug,
} from "./vm-volume-requests.js";

export {
  FailedCreateVirtualMachineReason,
  FailedDeleteVirtualMachineReason,
  SuccessfulCreateVirtualMachineReason,
  SuccessfulDeleteVirtualMachineReason,
};

export interface VMControllerDeps {
  client: KubeClient;
  vms: Informer<StoredVM>;
  vmis: Informer<StoredVMI>;
  /** ControllerRevisions, indexed by ControllerUIDIndex. */
  revisions: Informer<ControllerRevision>;
  clusterConfig: () => ClusterConfig;
  recorder: Pick<EventRecorder, "event">;
  clock?: Clock;
  logger?: Logger;
  /** [0, 1): spreads the start backoff of VMs failing together. */
  random?: () => number;
  /** Instance types and preferences; default: a handler reading the caches below, then the apiserver. */
  instancetypes?: InstancetypeVMHandler;
  /** Upstream's informers of the four instancetype kinds; absent: those are read from the apiserver. */
  instancetypeInformers?: InstancetypeInformers;
  /** Claims, for WaitingForVolumeBinding; absent: none are known. */
  pvcs?: Informer<PersistentVolumeClaim>;
  /** Where volume requests are passed on to a running VMI; default: virt-api's VMI subresources. */
  vmiVolumes?: VMIVolumeHotplug;
}

interface SyncState {
  vm: StoredVM;
  /** The VM's own VMI as last seen or written; undefined when there is none. */
  vmi: StoredVMI | undefined;
  /** Whether the VM needs a restart to run its template; undefined leaves the condition as it is. */
  restartRequired?: boolean;
}

export class VMController {
  readonly queue: WorkQueue<string>;
  readonly expectations = new UIDTrackingControllerExpectations(new ControllerExpectations("vms"));
  private readonly vmClient: ResourceClient<StoredVM>;
  private readonly vmiClient: ResourceClient<StoredVMI>;
  private readonly writes: VMWrites;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly reporter: Reporter;
  private readonly instancetypes: InstancetypeVMHandler;
  private readonly dataVolumes: DataVolumeTemplates;
  private readonly vmiVolumes: VMIVolumeHotplug;

  constructor(private readonly deps: VMControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-vm", logger: this.logger });
    this.vmClient = deps.client.resource<StoredVM>(virtualMachinesGVR);
    this.vmiClient = deps.client.resource<StoredVMI>(virtualMachineInstancesGVR);
    this.writes = new VMWrites(deps.client, deps.revisions);
    this.vmiVolumes = deps.vmiVolumes ?? subresourceVolumeHotplug(deps.client.transport);
    this.instancetypes =
      deps.instancetypes ??
      new InstancetypeVMHandler(
        deps.client,
        cachedSources(deps.client, instancetypeCaches(deps.instancetypeInformers, deps.revisions)),
        deps.clusterConfig,
        deps.recorder,
        (message) => this.logger.info(message),
      );
    this.dataVolumes = new DataVolumeTemplates(
      deps.client,
      (namespace, name) => deps.pvcs?.getByName(namespace, name),
      this.reporter,
    );
    deps.vms.onChange((vm) => this.queue.add(keyOf(vm)));
    // Upstream wakes the VMs using a claim when it is added (not on its updates).
    deps.pvcs?.addEventHandler({ add: (pvc) => this.onPVCAdd(pvc) });
    deps.vmis.addEventHandler({
      add: (vmi) => this.onVMIAdd(vmi),
      update: (old, vmi) => this.onVMIUpdate(old, vmi),
      delete: (vmi) => this.onVMIDelete(vmi),
    });
  }

  private onPVCAdd(pvc: PersistentVolumeClaim): void {
    if (isBeingDeleted(pvc)) return;
    const namespace = pvc.metadata.namespace ?? "";
    for (const vm of this.deps.vms.byIndex(NamespaceIndex, namespace)) {
      const volumes = vm.spec.template.spec?.volumes ?? [];
      if (volumes.some((volume) => pvcNameFromVirtVolume(volume) === pvc.metadata.name)) {
        this.queue.add(keyOf(vm));
      }
    }
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  // Event handlers: a VMI wakes the VM that controls it (same name, matching uid).

  private owningVMKey(
    vmi: StoredVMI,
    ref: OwnerReference | undefined = controllerRefOf(vmi),
  ): string | undefined {
    if (!ref || ref.kind !== "VirtualMachine") return undefined;
    const vm = this.deps.vms.getByName(vmi.metadata?.namespace ?? "", ref.name);
    return vm && vm.metadata?.uid === ref.uid ? keyOf(vm) : undefined;
  }

  private onVMIAdd(vmi: StoredVMI): void {
    if (isBeingDeleted(vmi)) return this.onVMIDelete(vmi);
    const key = this.owningVMKey(vmi);
    if (key) {
      this.expectations.creationObserved(key);
      this.queue.add(key);
      return;
    }
    // An orphan: the VM of the same name, if any, takes a look (it does not adopt it).
    if (!controllerRefOf(vmi) && this.deps.vms.get(keyOf(vmi))) this.queue.add(keyOf(vmi));
  }

  private onVMIUpdate(old: StoredVMI, vmi: StoredVMI): void {
    if (old.metadata?.resourceVersion === vmi.metadata?.resourceVersion) return;
    if (isBeingDeleted(vmi)) {
      this.onVMIDelete(vmi);
      return;
    }
    const oldKey = this.owningVMKey(old);
    const key = this.owningVMKey(vmi);
    if (oldKey && oldKey !== key) this.queue.add(oldKey);
    if (key) this.queue.add(key);
  }

  private onVMIDelete(vmi: StoredVMI): void {
    const key = this.owningVMKey(vmi);
    if (!key) return;
    this.expectations.deletionObserved(key, keyOf(vmi));
    this.queue.add(key);
  }

  /** One VM: act on its VMI, then report its status; throws to retry with backoff. */
  async execute(key: string): Promise<SyncResult> {
    const original = this.deps.vms.get(key);
    if (!original) {
      this.expectations.deleteExpectations(key);
      return;
    }
    if (!observedLatestApiVersion(original)) {
      await this.vmClient.update(withLatestApiVersion(original));
      return;
    }
    const cached = this.deps.vmis.get(key);
    const state: SyncState = {
      vm: original,
      vmi: cached && isControlledBy(cached, original.metadata?.uid) ? cached : undefined,
    };
    let syncError: SyncError | undefined;
    let result: SyncResult = undefined;
    try {
      result = await this.sync(key, state);
    } catch (err) {
      if (!(err instanceof SyncError)) throw err;
      syncError = err;
    }
    // The status is reported from the latest versions this sync wrote, even when it failed midway.
    await this.updateStatus(key, state, syncError);
    if (syncError) throw syncError;
    return result;
  }

  /** Acts on the VM's VMI; keeps `state` at the latest versions it wrote. */
  private async sync(key: string, state: SyncState): Promise<SyncResult> {
    // Until our own creations and deletions are visible in the cache nothing can be decided safely.
    if (!this.expectations.satisfiedExpectations(key)) return;
    // What the VMI was started from, taken before this sync stops or starts anything.
    const startedFrom = state.vmi ? this.startedFromSpec(state.vm) : undefined;
    if (isBeingDeleted(state.vm)) {
      if (!state.vmi || state.vm.metadata?.finalizers?.includes(OrphanDependentsFinalizer)) {
        state.vm = await this.writes.setControllerFinalizer(state.vm, false);
      } else {
        await this.stopVMI(key, state.vm, state.vmi);
      }
      return;
    }
    state.vm = await this.writes.setControllerFinalizer(state.vm, true);
    if (state.vmi) state.vmi = await this.writes.bumpGeneration(state.vm, state.vmi);
    const strategy = runStrategyOf(state.vm);
    if (!strategy.ok) throw new SyncError(`Error fetching RunStrategy: ${strategy.message}`, "FailedCreate");
    state.vm = await this.instancetypes.sync(state.vm).catch((err: unknown) => {
      throw synchronizerError(err);
    });
    if (!(await this.dataVolumesReady(state.vm, strategy.value))) return undefined;
    const action = decideRunStrategyAction(state.vm, state.vmi, strategy.value, this.clock.now());
    // A new VMI runs the current template.
    if (action.kind === "start") state.restartRequired = false;
    state.vm = await this.carryOut(key, action, state.vm, state.vmi);
    if (startedFrom) state.restartRequired = await this.restartRequired(startedFrom, state.vm, state.vmi);
    // A VM starting after its backoff is looked at again then; nothing else would wake it.
    const result = action.kind === "waitForBackoff" ? { requeueAfter: action.seconds * 1000 } : undefined;
    if (!this.expectations.satisfiedExpectations(key)) return result;
    state.vm = await this.handleVolumeRequests(state.vm, state.vmi);
    state.vm = await this.writes.ensureFirmwareUUID(state.vm);
    return result;
  }

  /**
   * Upstream creates the template DataVolumes before anything else and holds the VM back until they are
   * there (a Halted VM goes on); the annotation set to "false" defers them to the start.
   */
  private async dataVolumesReady(vm: StoredVM, runStrategy: string): Promise<boolean> {
    if (vm.metadata?.annotations?.[ImmediateDataVolumeCreationAnnotation] === "false") return true;
    try {
      return (await this.dataVolumes.ensure(vm)) || runStrategy === "Halted";
    } catch (err) {
      throw new SyncError(
        `Error encountered while creating DataVolumes: ${errorMessage(err)}`,
        "FailedCreate",
      );
    }
  }

  /**
   * Upstream's handleVolumeRequests: the template takes every pending request, the running VMI is asked to
   * hotplug or unplug them; the status drops them once the template shows them (computeVMStatus).
   */
  private async handleVolumeRequests(vm: StoredVM, vmi: StoredVMI | undefined): Promise<StoredVM> {
    const requests = vm.status?.volumeRequests ?? [];
    if (requests.length === 0) return vm;
    const template = templateWithVolumeRequests(vm);
    try {
      await passVolumeRequestsToVMI(requests, vmi, this.vmiVolumes);
    } catch (err) {
      throw new SyncError(
        `Error encountered while handling volume hotplug requests: ${errorMessage(err)}`,
        HotplugVolumeErrorReason,
      );
    }
    if (jsonEqual(template, vm.spec.template.spec)) return vm;
    const next = structuredClone(vm);
    next.spec.template.spec = template;
    try {
      return await this.vmClient.update(next);
    } catch (err) {
      throw new SyncError(
        `Error encountered when trying to update vm according to add volume and/or memory dump requests: ${errorMessage(err)}`,
        FailedUpdateErrorReason,
      );
    }
  }

  /**
   * Upstream's syncRestartRequired: both templates compared with their instance types and preferences
   * applied (the start revision's pinned ones for what the VMI runs); undefined, leaving the condition
   * as it is, when either cannot be applied.
   */
  private async restartRequired(
    startedFrom: VirtualMachineSpec,
    vm: StoredVM,
    vmi: StoredVMI | undefined,
  ): Promise<boolean | undefined> {
    const current = structuredClone(vm);
    // The namespace is needed to find the namespaced kinds; the status is not carried over.
    const lastSeen: VirtualMachine = {
      metadata: structuredClone(vm.metadata),
      spec: structuredClone(startedFrom),
    };
    try {
      await this.instancetypes.applyToVM(current);
      await this.instancetypes.applyToVM(lastSeen);
    } catch {
      return undefined;
    }
    return isRestartRequired(lastSeen.spec, current, vmi);
  }

  private startedFromSpec(vm: StoredVM): VirtualMachineSpec | undefined {
    return lastRevisionSpec(vm, this.deps.revisions.byIndex(ControllerUIDIndex, vm.metadata?.uid ?? ""));
  }

  private async carryOut(
    key: string,
    action: RunStrategyAction,
    vm: StoredVM,
    vmi: StoredVMI | undefined,
  ): Promise<StoredVM> {
    switch (action.kind) {
      case "start":
        await this.startVMI(key, vm);
        return vm;
      case "stop":
        if (vmi) await this.stopVMI(key, vm, vmi);
        return vm;
      case "stopAndRequestStart":
        if (vmi) await this.stopVMI(key, vm, vmi);
        return this.writes.addStartRequest(vm);
      case "switchToAlways":
        return this.writes.switchToAlways(vm);
      case "unsupported":
        throw new SyncError(action.message, "FailedCreate");
      default:
        return vm;
    }
  }

  private async startVMI(key: string, vm: StoredVM): Promise<void> {
    try {
      // Deferred DataVolumes (see dataVolumesReady) are made now; the start waits for them.
      if (!(await this.dataVolumes.ensure(vm))) return;
      const revision = await this.writes.ensureRevision(vm);
      // Upstream looks the preference up for its auto-attach choices, then both again to apply them,
      // each failure with its own event.
      let preference: VirtualMachinePreferenceSpec | undefined;
      try {
        preference = await this.instancetypes.preferenceFor(vm);
      } catch (err) {
        this.reporter.event(
          vm,
          "Warning",
          FailedCreateVirtualMachineReason,
          `Error applying device preferences again: ${errorMessage(err)}`,
        );
        throw err;
      }
      const { vmi, problem } = vmiToStart(vm, revision, this.deps.clusterConfig(), (started) =>
        this.instancetypes.applyAutoAttachPreferences({ preference }, started),
      );
      if (problem !== undefined) throw new Error(problem);
      try {
        const instancetype = await this.instancetypes.instancetypeFor(vm);
        this.instancetypes.applyToVMI(vm, { instancetype, preference }, vmi);
      } catch (err) {
        this.reporter.event(
          vm,
          "Warning",
          FailedCreateVirtualMachineReason,
          `Error creating virtual machine instance: Failed to apply instancetype: ${errorMessage(err)}`,
        );
        throw err;
      }
      this.expectations.expectCreations(key, 1);
      try {
        const created = await this.vmiClient.create(toStored(vmi));
        this.reporter.event(
          vm,
          "Normal",
          SuccessfulCreateVirtualMachineReason,
          `Started the virtual machine by creating the new virtual machine instance ${created.metadata?.name ?? ""}`,
        );
      } catch (err) {
        this.expectations.creationObserved(key);
        this.reporter.event(
          vm,
          "Warning",
          FailedCreateVirtualMachineReason,
          `Error creating virtual machine instance: ${errorMessage(err)}`,
        );
        throw err;
      }
    } catch (err) {
      throw new SyncError(`Failure while starting VMI: ${errorMessage(err)}`, "FailedCreate");
    }
  }

  private async stopVMI(key: string, vm: StoredVM, vmi: StoredVMI): Promise<void> {
    if (isBeingDeleted(vmi)) return;
    const name = vmi.metadata?.name ?? "";
    this.expectations.expectDeletions(key, [keyOf(vmi)]);
    try {
      await this.vmiClient.delete(vmi.metadata?.namespace ?? "", name);
    } catch (err) {
      // A deletion the server refused will never be observed.
      this.expectations.deletionObserved(key, keyOf(vmi));
      this.reporter.event(
        vm,
        "Warning",
        FailedDeleteVirtualMachineReason,
        `Error deleting virtual machine instance ${name}: ${errorMessage(err)}`,
      );
      throw new SyncError(`Failure attempting to delete VMI: ${errorMessage(err)}`, "FailedDelete");
    }
    this.reporter.event(
      vm,
      "Normal",
      SuccessfulDeleteVirtualMachineReason,
      `Stopped the virtual machine by deleting the virtual machine instance ${vmi.metadata?.uid ?? ""}`,
    );
  }

  private async updateStatus(key: string, state: SyncState, syncError: SyncError | undefined): Promise<void> {
    const { vm, vmi } = state;
    const pending = this.expectations.expectations.getExpectations(key);
    const status = computeVMStatus({
      vm,
      vmi,
      syncError,
      restartRequired: state.restartRequired,
      startExpected: (pending?.add ?? 0) > 0,
      stopExpected: (pending?.del ?? 0) > 0,
      observedGeneration: vmi ? await this.writes.observedGeneration(vmi) : undefined,
      now: this.clock.now(),
      random: this.deps.random ?? Math.random,
      pvcs: (namespace, name) => this.deps.pvcs?.getByName(namespace, name),
    });
    if (!jsonEqual(status, vm.status)) {
      // A VM whose last finalizer this sync removed is gone: there is nothing left to report on.
      await this.vmClient.updateStatus({ ...vm, status }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    // The VM has recorded what it needed from a finished VMI: let the VMI go.
    const finished = vmi && (isFinal(vmi) || (isWaitingForSync(vmi) && isMarkedForDeletion(vmi)));
    if (vmi && finished && vmi.metadata?.finalizers?.includes(VirtualMachineControllerFinalizer)) {
      const next = vmi.metadata.finalizers.filter((name) => name !== VirtualMachineControllerFinalizer);
      await this.writes.patchVMI(
        vmi,
        new PatchSet().testAndSet("/metadata/finalizers", vmi.metadata.finalizers, next),
      );
    }
  }
}

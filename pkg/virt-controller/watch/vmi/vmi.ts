// The VMI controller (upstream's watch/vmi): for each VMI it creates the virt-launcher Pod, deletes the
// Pods of a deleted VMI, keeps the attachment pod of its hotplugged volumes (volume-hotplug.ts), and
// reports the phase up to Scheduled with the Pod's node, conditions, active Pods and volume status. Pod
// creations and deletions are guarded by expectations, so a cache that has not seen them yet never
// causes a second Pod.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { ApiError, isNotFound } from "../../../controller/api-error.js";
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import type { EventRecorder } from "../../../controller/events.js";
import {
  ControllerExpectations,
  ExpectationsTimeoutMs,
  UIDTrackingControllerExpectations,
} from "../../../controller/expectations.js";
import { NamespaceIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import {
  controllerRefOf,
  keyOf,
  splitKey,
  type OwnerReference,
  isBeingDeleted,
} from "../../../controller/object.js";
import type { SyncResult } from "../../../controller/workqueue.js";
import { WorkQueue } from "../../../controller/workqueue.js";
import { EvictOnlyAnnotation } from "../../../util/constants.js";
import {
  coreGVR,
  toStored,
  virtualMachineInstancesGVR,
  type StoredVM,
  type StoredVMI,
} from "../../../controller/resources.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { LaunchManifestError, type TemplateService } from "../../services/template.js";
import { observedLatestApiVersion, withLatestApiVersion } from "../common/api-version.js";
import { currentVMIPod, isControlledBy, isPodReady } from "../common/pod-state.js";
import { desiredUnpausedCondition, dynamicMetadataPatch, podAnnotationsPatch } from "./pod-sync.js";
import { Reporter } from "../common/reporter.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import {
  isFinal,
  isMarkedForDeletion,
  isRunning,
  isScheduled,
  isUnprocessed,
} from "../../../controller/vmi-phase.js";
import { prepareVMIPatch, vmiChanged } from "./vmi-patch.js";
import type { PersistentVolumeClaim } from "../../../api/core/v1/persistentvolumeclaim.js";
import { PvcNotFoundError, pvcNameFromVirtVolume } from "../../../storage/types/pvc.js";
import { FailedPvcNotFoundReason, missingClaim } from "./datavolumes.js";
import { computeVMIStatus } from "./vmi-status.js";
import type { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../virt-config/featuregate/feature-gates.js";
import { attachmentPodsOf, needsHandleHotplug, VolumeHotplug } from "./volume-hotplug.js";
import { getHotplugVolumes } from "../../../storage/types/volume.js";
import {
  FailedCreatePodReason,
  FailedDeletePodReason,
  SuccessfulCreatePodReason,
  SuccessfulDeletePodReason,
} from "./reasons.js";

export {
  FailedCreatePodReason,
  FailedDeletePodReason,
  SuccessfulCreatePodReason,
  SuccessfulDeletePodReason,
} from "./reasons.js";

export interface VMIControllerDeps {
  client: KubeClient;
  vmis: Informer<StoredVMI>;
  vms: Informer<StoredVM>;
  /** Pods labelled `kubevirt.io`, in every namespace. */
  pods: Informer<Pod>;
  /** Claims: a VMI waits for its PVCs, and its volume status carries their info. */
  pvcs: Informer<PersistentVolumeClaim>;
  templateService: TemplateService;
  clusterConfig: () => ClusterConfig;
  recorder: Pick<EventRecorder, "event">;
  clock?: Clock;
  logger?: Logger;
}

const podKey = (pod: Pod): string => keyOf(pod);
const isForbidden = (err: unknown): boolean => err instanceof ApiError && err.code === 403;

export class VMIController {
  readonly queue: WorkQueue<string>;
  readonly podExpectations = new UIDTrackingControllerExpectations(new ControllerExpectations("pods"));
  readonly vmiExpectations = new UIDTrackingControllerExpectations(new ControllerExpectations("vmis"));
  private readonly vmiClient: ResourceClient<StoredVMI>;
  private readonly podClient: ResourceClient<Pod>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly reporter: Reporter;
  private readonly hotplug: VolumeHotplug;

  constructor(private readonly deps: VMIControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-vmi", logger: this.logger });
    this.vmiClient = deps.client.resource<StoredVMI>(virtualMachineInstancesGVR);
    this.podClient = deps.client.resource<Pod>(coreGVR.pods);
    this.hotplug = new VolumeHotplug({
      podClient: this.podClient,
      podExpectations: this.podExpectations,
      templateService: deps.templateService,
      pvcs: (namespace, name) => deps.pvcs.getByName(namespace, name),
      podsIn: (namespace) => this.podsIn(namespace),
      requeueAfter: (key, delayMs) => this.queue.addAfter(key, delayMs),
      reporter: this.reporter,
      clock: this.clock,
      logger: this.logger,
    });
    deps.vmis.onChange((vmi) => this.onVMIChange(vmi));
    deps.pods.addEventHandler({
      add: (pod) => this.onPodAdd(pod),
      update: (old, pod) => this.onPodUpdate(old, pod),
      delete: (pod) => this.onPodDelete(pod),
    });
    deps.pvcs.addEventHandler({
      add: (pvc) => this.onPVCChange(pvc),
      update: (old, pvc) => {
        if (old.metadata.resourceVersion !== pvc.metadata.resourceVersion) this.onPVCChange(pvc);
      },
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  // Event handlers turn objects into keys; a Pod wakes the VMI that controls it.

  private onVMIChange(vmi: StoredVMI): void {
    const key = keyOf(vmi);
    // Any event about the VMI shows the controller's own write arrived.
    this.vmiExpectations.expectations.setExpectations(key, 0, 0);
    this.queue.add(key);
  }

  /** The VMI controlling the Pod; an attachment pod's is the VMI of the launcher Pod controlling it. */
  private owningVMIKey(pod: Pod, ref: OwnerReference | undefined = controllerRefOf(pod)): string | undefined {
    if (ref?.kind === "Pod") {
      const owner = this.deps.pods.getByName(pod.metadata.namespace ?? "", ref.name);
      ref = owner && controllerRefOf(owner);
    }
    if (!ref || ref.kind !== "VirtualMachineInstance") return undefined;
    const vmi = this.deps.vmis.getByName(pod.metadata.namespace ?? "", ref.name);
    return vmi && vmi.metadata?.uid === ref.uid ? keyOf(vmi) : undefined;
  }

  private onPodAdd(pod: Pod): void {
    // A restarted controller may first see a Pod already being deleted: that is no creation.
    if (isBeingDeleted(pod)) return this.onPodDelete(pod);
    const key = this.owningVMIKey(pod);
    if (!key) return;
    this.podExpectations.creationObserved(key);
    this.queue.add(key);
  }

  private onPodUpdate(old: Pod, pod: Pod): void {
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    if (isBeingDeleted(pod)) {
      this.onPodDelete(pod);
      return;
    }
    const oldKey = this.owningVMIKey(old);
    const key = this.owningVMIKey(pod);
    if (oldKey && oldKey !== key) this.queue.add(oldKey);
    if (key) this.queue.add(key);
  }

  /** A claim that appears (or changes) wakes the VMIs of its namespace that use it. */
  private onPVCChange(pvc: PersistentVolumeClaim): void {
    if (isBeingDeleted(pvc)) return;
    const namespace = pvc.metadata.namespace ?? "";
    for (const vmi of this.deps.vmis.byIndex(NamespaceIndex, namespace)) {
      const uses = (vmi.spec.volumes ?? []).some(
        (volume) => pvcNameFromVirtVolume(volume) === pvc.metadata.name,
      );
      if (uses) this.queue.add(keyOf(vmi));
    }
  }

  private onPodDelete(pod: Pod): void {
    const key = this.owningVMIKey(pod);
    if (!key) return;
    this.podExpectations.deletionObserved(key, podKey(pod));
    this.queue.add(key);
  }

  /** One VMI: act on its Pods, then report its status; throws to retry with backoff. */
  async execute(key: string): Promise<SyncResult> {
    const vmi = this.deps.vmis.get(key);
    if (!vmi) {
      this.podExpectations.deleteExpectations(key);
      this.vmiExpectations.deleteExpectations(key);
      return;
    }
    // First of all, rewrite objects stored by an older API version.
    if (!observedLatestApiVersion(vmi)) {
      await this.writeVMI(key, () => this.vmiClient.update(withLatestApiVersion(vmi)));
      return;
    }
    // Until our own writes are visible in the cache nothing here can be decided safely.
    if (
      !this.podExpectations.satisfiedExpectations(key) ||
      !this.vmiExpectations.satisfiedExpectations(key)
    ) {
      return { requeueAfter: ExpectationsTimeoutMs };
    }
    const { namespace } = splitKey(key);
    let pod = currentVMIPod(vmi, this.podsIn(namespace));
    let syncError: SyncError | undefined;
    try {
      pod = await this.reconcilePods(key, vmi, pod);
    } catch (err) {
      if (!(err instanceof SyncError)) throw err;
      syncError = err;
    }
    await this.updateStatus(key, vmi, pod, syncError);
    if (syncError?.requiresRequeue) throw syncError;
  }

  private podsIn(namespace: string): Pod[] {
    return this.deps.pods.byIndex(NamespaceIndex, namespace);
  }

  private ownedPods(vmi: StoredVMI): Pod[] {
    return this.podsIn(vmi.metadata?.namespace ?? "").filter((pod) => isControlledBy(pod, vmi.metadata?.uid));
  }

  /** Creates the launcher Pod of a new VMI, deletes the Pods of a deleted one; returns the current Pod. */
  private async reconcilePods(key: string, vmi: StoredVMI, pod: Pod | undefined): Promise<Pod | undefined> {
    if (isMarkedForDeletion(vmi)) {
      await this.deleteAllPods(key, vmi);
      return pod;
    }
    if (isFinal(vmi)) {
      await this.hotplug.deleteAllAttachmentPods(key, vmi);
      return pod;
    }
    await this.hotplug.deleteOrphanedAttachmentPods(key, vmi);
    if (!pod) {
      // A VMI past Pending had its Pod once: it is never created twice.
      if (!isUnprocessed(vmi)) return undefined;
      return this.createPod(key, vmi);
    }
    if (isPodReady(pod)) {
      const patch = podAnnotationsPatch(pod, { [EvictOnlyAnnotation]: "" });
      if (!patch.isEmpty) {
        pod = await this.podClient
          .patch(pod.metadata.namespace ?? "", pod.metadata.name ?? "", "json", patch.toJSON())
          .catch((err: unknown) => {
            throw new SyncError(errorMessage(err), "FailedPodPatch");
          });
      }
      await this.syncHotplugVolumes(key, vmi, pod);
    }
    return pod;
  }

  /** The ready launcher Pod gets an attachment pod for the hotplugged volumes (upstream's sync). */
  private async syncHotplugVolumes(key: string, vmi: StoredVMI, pod: Pod): Promise<void> {
    if (isBeingDeleted(pod)) return;
    const hotplugVolumes = getHotplugVolumes(vmi, pod);
    const attachmentPods = attachmentPodsOf(pod, this.podsIn(pod.metadata.namespace ?? ""));
    if (!needsHandleHotplug(hotplugVolumes, attachmentPods)) return;
    await this.hotplug.handleHotplugVolumes(key, hotplugVolumes, attachmentPods, vmi, pod);
  }

  private async createPod(key: string, vmi: StoredVMI): Promise<Pod | undefined> {
    const waiting = missingClaim(vmi, (namespace, name) => this.deps.pvcs.getByName(namespace, name));
    if (waiting) {
      this.reporter.event(vmi, "Normal", FailedPvcNotFoundReason, waiting.message);
      throw waiting;
    }
    let manifest: Pod;
    try {
      manifest = await this.deps.templateService.renderLaunchManifest(vmi);
    } catch (err) {
      if (err instanceof LaunchManifestError) throw new SyncError(err.message, FailedCreatePodReason);
      if (err instanceof PvcNotFoundError) {
        // An ephemeral volume's base claim is only found missing here.
        const message = `failed to render launch manifest: ${err.message}`;
        this.reporter.event(vmi, "Warning", FailedPvcNotFoundReason, message);
        throw new SyncError(message, FailedPvcNotFoundReason, false);
      }
      throw err;
    }
    this.podExpectations.expectCreations(key, 1);
    try {
      const created = await this.podClient.create(manifest);
      this.reporter.event(
        vmi,
        "Normal",
        SuccessfulCreatePodReason,
        `Created virtual machine pod ${created.metadata.name ?? ""}`,
      );
      return created;
    } catch (err) {
      // The creation will never be observed.
      this.podExpectations.creationObserved(key);
      const message = errorMessage(err);
      if (isForbidden(err) && message.includes("violates PodSecurity")) {
        const why = `failed to create pod for vmi ${key}, it needs a privileged namespace to run: ${message}`;
        this.reporter.event(
          vmi,
          "Warning",
          FailedCreatePodReason,
          `failed to render launch manifest: ${why}`,
        );
        throw new SyncError(why, FailedCreatePodReason);
      }
      this.reporter.event(vmi, "Warning", FailedCreatePodReason, `Error creating pod: ${message}`);
      throw new SyncError(`failed to create virtual machine pod: ${message}`, FailedCreatePodReason);
    }
  }

  private async deleteAllPods(key: string, vmi: StoredVMI): Promise<void> {
    for (const pod of this.ownedPods(vmi)) {
      const final = pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
      if (isBeingDeleted(pod) && !final) continue;
      const name = pod.metadata.name ?? "";
      this.podExpectations.expectDeletions(key, [podKey(pod)]);
      try {
        await this.podClient.delete(pod.metadata.namespace ?? "", name);
      } catch (err) {
        this.podExpectations.deletionObserved(key, podKey(pod));
        if (!isNotFound(err)) {
          this.reporter.event(
            vmi,
            "Warning",
            FailedDeletePodReason,
            `Failed to delete virtual machine pod ${name}`,
          );
          throw new SyncError(`failed to delete pod: ${errorMessage(err)}`, FailedDeletePodReason);
        }
      }
      this.reporter.event(vmi, "Normal", SuccessfulDeletePodReason, `Deleted virtual machine pod ${name}`);
    }
  }

  private hasOwnerVM(vmi: StoredVMI): boolean {
    const ref = controllerRefOf(vmi);
    if (!ref || ref.kind !== "VirtualMachine") return false;
    return this.deps.vms.getByName(vmi.metadata?.namespace ?? "", ref.name)?.metadata?.uid === ref.uid;
  }

  /** Computes the status from what was observed and writes it (and the Pod's gate) if anything changed. */
  private async updateStatus(
    key: string,
    vmi: StoredVMI,
    pod: Pod | undefined,
    syncError: SyncError | undefined,
  ): Promise<void> {
    const now = this.clock.now();
    const { vmi: next, events } = computeVMIStatus({
      vmi,
      pod,
      ownedPods: this.ownedPods(vmi),
      attachmentPods: pod ? attachmentPodsOf(pod, this.podsIn(pod.metadata.namespace ?? "")) : [],
      syncError,
      launcherImage: this.deps.templateService.launcherImage,
      reportMemoryOverhead: this.deps
        .clusterConfig()
        .isFeatureGateEnabled(FeatureGate.VmiMemoryOverheadReport),
      hasOwnerVM: this.hasOwnerVM(vmi),
      pvcs: (namespace, name) => this.deps.pvcs.getByName(namespace, name),
      now,
      log: this.logger,
    });
    for (const event of events) this.reporter.event(vmi, event.type, event.reason, event.message);
    const temporary = pod?.metadata.annotations?.["kubevirt.io/ephemeral-provisioning"] !== undefined;
    if (pod && !temporary) await this.syncPod(next, pod, now);
    if (isRunning(vmi) || isScheduled(vmi)) {
      // virt-handler owns the VMI now: patch only what this controller manages.
      const patch = prepareVMIPatch(vmi, next);
      if (patch.isEmpty) return;
      await this.vmiClient.patch(
        vmi.metadata?.namespace ?? "",
        vmi.metadata?.name ?? "",
        "json",
        patch.toJSON(),
      );
      return;
    }
    if (!vmiChanged(vmi, next)) return;
    await this.writeVMI(key, () => this.vmiClient.update(toStored(next)));
  }

  private async syncPod(vmi: VirtualMachineInstance, pod: Pod, now: number): Promise<void> {
    const namespace = pod.metadata.namespace ?? "";
    const name = pod.metadata.name ?? "";
    const condition = desiredUnpausedCondition(vmi, pod, now);
    if (condition) {
      await this.podClient.patchStatus(namespace, name, "strategic", { status: { conditions: [condition] } });
    }
    const metadataPatch = dynamicMetadataPatch(vmi, pod);
    if (!metadataPatch.isEmpty) await this.podClient.patch(namespace, name, "json", metadataPatch.toJSON());
  }

  /** A full VMI write; until the cache shows it, this VMI is not synced again. */
  private async writeVMI(key: string, write: () => Promise<StoredVMI>): Promise<void> {
    this.vmiExpectations.expectations.setExpectations(key, 1, 0);
    try {
      await write();
    } catch (err) {
      this.vmiExpectations.expectations.setExpectations(key, 0, 0);
      throw err;
    }
  }
}

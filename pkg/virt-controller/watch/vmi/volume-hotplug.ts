// The attachment pods of a VMI's hotplugged volumes (upstream's watch/vmi/volume-hotplug.go). While the
// launcher Pod is ready, the claims of the hotplugged volumes that are ready to attach are held by one
// attachment pod on the launcher's node, controlled by the launcher Pod. When the set of ready volumes
// changes a new pod is created for the new set; the old ones go once the new one runs and none of their
// volumes is still mounted into the launcher (virt-handler reports that in the volume status).
// Creations and deletions are counted in the VMI's pod expectations, so a cache that has not seen them
// yet never makes a second pod.
import type { VirtualMachineInstance, Volume } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { PersistentVolumeClaim, PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { isNotFound } from "../../../controller/api-error.js";
import type { Clock } from "../../../controller/clock.js";
import type { ResourceClient } from "../../../controller/client.js";
import type { UIDTrackingControllerExpectations } from "../../../controller/expectations.js";
import type { Logger } from "../../../controller/log.js";
import { isBeingDeleted, keyOf } from "../../../controller/object.js";
import { SyncError } from "../../../controller/sync-error.js";
import type { DataVolume } from "../../../storage/types/cdi.js";
import { isPVCBlock, pvcNameFromVirtVolume } from "../../../storage/types/pvc.js";
import { isHotplugVolume, isUtilityVolume, VolumePhase } from "../../../storage/types/volume.js";
import { errorMessage } from "../../../util/error-message.js";
import type { TemplateService } from "../../services/template.js";
import { currentVMIPod, isControlledBy, podIsDown } from "../common/pod-state.js";
import type { Reporter } from "../common/reporter.js";
import {
  FailedCreatePodReason,
  FailedDeletePodReason,
  FailedHotplugSyncReason,
  PVCNotReadyReason,
  SuccessfulCreatePodReason,
  SuccessfulDeletePodReason,
} from "./reasons.js";

/** A DataVolume by namespace and name; none without CDI. */
export type DataVolumeLookup = (namespace: string, name: string) => DataVolume | undefined;
const noDataVolumes: DataVolumeLookup = () => undefined;

/** The Pods the launcher Pod controls: its attachment pods (upstream's controller.AttachmentPods). */
export function attachmentPodsOf(launcherPod: Pod, podsInNamespace: readonly Pod[]): Pod[] {
  return podsInNamespace.filter((pod) => isControlledBy(pod, launcherPod.metadata.uid));
}

/**
 * Whether the attachment pod holds exactly these volumes' claims. Upstream counts every pod volume but
 * the emptyDir and the service account token volume the apiserver adds; counting the claims is the same
 * without depending on that token volume being there.
 */
export function podVolumesMatchesReadyVolumes(attachmentPod: Pod, volumes: readonly Volume[]): boolean {
  const claims = (attachmentPod.spec.volumes ?? []).filter((volume) => volume.persistentVolumeClaim);
  if (claims.length !== volumes.length) return false;
  const names = new Set(volumes.map((volume) => volume.name));
  return claims.every((volume) => names.has(volume.name));
}

export function needsHandleHotplug(
  hotplugVolumes: readonly Volume[],
  attachmentPods: readonly Pod[],
): boolean {
  if (attachmentPods.length > 1) return true;
  const [only] = attachmentPods;
  if (attachmentPods.length === 1 && only && podVolumesMatchesReadyVolumes(only, hotplugVolumes))
    return false;
  return hotplugVolumes.length > 0 || attachmentPods.length > 0;
}

const createdAt = (pod: Pod): number => Date.parse(pod.metadata.creationTimestamp ?? "") || 0;

/**
 * The attachment pod holding exactly the ready volumes (unless it is being deleted), and the others,
 * newest first.
 */
export function getActiveAndOldAttachmentPods(
  readyVolumes: readonly Volume[],
  attachmentPods: readonly Pod[],
): { current: Pod | undefined; old: Pod[] } {
  let current: Pod | undefined;
  const old: Pod[] = [];
  for (const pod of attachmentPods) {
    if (!podVolumesMatchesReadyVolumes(pod, readyVolumes)) old.push(pod);
    else if (!isBeingDeleted(pod)) current = pod;
  }
  old.sort((a, b) => createdAt(b) - createdAt(a));
  return { current, old };
}

/** A volume virt-handler still has in the launcher Pod keeps its attachment pod. */
export const volumeReadyForPodDelete = (phase: string | undefined): boolean =>
  phase !== VolumePhase.Ready && phase !== VolumePhase.MountedToPod;

/** Some pod has not started (or ended) yet. */
export const hasPendingPods = (pods: readonly Pod[]): boolean =>
  pods.some((pod) => !["Running", "Succeeded", "Failed"].includes(pod.status?.phase ?? ""));

/** Only the controller moves a volume out of these phases into AttachedToNode. */
export const canMoveToAttachedPhase = (phase: string | undefined): boolean =>
  !phase || phase === VolumePhase.Bound || phase === VolumePhase.Pending;

export function findAttachmentPodByVolumeName(volumeName: string, pods: readonly Pod[]): Pod | undefined {
  return pods.find((pod) => (pod.spec.volumes ?? []).some((volume) => volume.name === volumeName));
}

/**
 * Whether the claim may be attached (upstream's VolumeReadyToAttachToNode with CDI's
 * IsSucceededOrPendingPopulation): a claim that is not a DataVolume's is ready once it exists; a
 * DataVolume's once the DataVolume succeeded or waits for its consumer to populate. `wffc`: the
 * DataVolume waits for a first consumer before populating. Throws when the claim or its DataVolume is
 * not found.
 */
export function volumeReadyToAttachToNode(
  namespace: string,
  volume: Volume,
  pvcs: PVCLookup,
  dataVolumes: DataVolumeLookup = noDataVolumes,
): { ready: boolean; wffc: boolean } {
  const name = pvcNameFromVirtVolume(volume);
  const pvc = pvcs(namespace, name);
  if (!pvc) throw new Error(`didn't find PVC ${name}`);
  const phase = dataVolumePhase(pvc, dataVolumes);
  if (phase === undefined) return { ready: true, wffc: false };
  const ready = phase === "Succeeded" || phase === "PendingPopulation";
  return { ready, wffc: !ready && phase === "WaitForFirstConsumer" };
}

/** The phase of the DataVolume controlling the claim; undefined for a claim no DataVolume controls. */
function dataVolumePhase(pvc: PersistentVolumeClaim, dataVolumes: DataVolumeLookup): string | undefined {
  const owner = pvc.metadata.ownerReferences?.find((ref) => ref.controller === true);
  if (owner?.kind !== "DataVolume") return undefined;
  const namespace = pvc.metadata.namespace ?? "";
  const dataVolume = dataVolumes(namespace, owner.name);
  if (!dataVolume) throw new Error(`unable to find datavolume ${namespace}/${owner.name}`);
  return dataVolume.status?.phase ?? "";
}

export interface VolumeHotplugDeps {
  podClient: ResourceClient<Pod>;
  podExpectations: UIDTrackingControllerExpectations;
  templateService: Pick<TemplateService, "renderHotplugAttachmentPod">;
  pvcs: PVCLookup;
  dataVolumes?: DataVolumeLookup;
  podsIn(namespace: string): Pod[];
  /** Syncs the VMI again after a while (upstream's Queue.AddAfter). */
  requeueAfter(key: string, delayMs: number): void;
  reporter: Reporter;
  clock: Pick<Clock, "now">;
  logger: Logger;
}

/** What the VMI controller does with attachment pods; each method throws SyncError to retry. */
export class VolumeHotplug {
  constructor(private readonly deps: VolumeHotplugDeps) {}

  /** Creates the attachment pod of the ready hotplugged volumes, and deletes the pods not needed any more. */
  async handleHotplugVolumes(
    key: string,
    hotplugVolumes: readonly Volume[],
    attachmentPods: readonly Pod[],
    vmi: VirtualMachineInstance,
    launcherPod: Pod,
  ): Promise<void> {
    const readyVolumes: Volume[] = [];
    for (const volume of hotplugVolumes) {
      if (this.isUtilityVolumeWithBlockPVC(vmi, volume)) {
        this.deps.logger.debug(
          { volume: volume.name },
          "Skipping utility volume: configured with block volume mode PVC, utility volumes require filesystem volume mode",
        );
        continue;
      }
      let readiness: { ready: boolean; wffc: boolean };
      try {
        readiness = volumeReadyToAttachToNode(
          vmi.metadata?.namespace ?? "",
          volume,
          this.deps.pvcs,
          this.deps.dataVolumes,
        );
      } catch (err) {
        throw new SyncError(`Error determining volume status ${errorMessage(err)}`, PVCNotReadyReason);
      }
      if (readiness.wffc) {
        // Upstream starts a trigger pod so CDI populates the claim; there is no CDI here.
        this.deps.logger.info(
          { volume: volume.name },
          "Volume is in WaitForFirstConsumer, not populated yet",
        );
        continue;
      }
      if (!readiness.ready) {
        this.deps.logger.debug({ volume: volume.name }, "Skipping hotplugged volume, not ready");
        continue;
      }
      readyVolumes.push(volume);
    }

    const active = getActiveAndOldAttachmentPods(readyVolumes, attachmentPods);
    let current = active.current;
    const old = active.old;
    if (!current && !hasPendingPods(old) && readyVolumes.length > 0) {
      const wait = this.rateLimited(old, readyVolumes.length);
      if (wait !== undefined) this.deps.requeueAfter(key, wait);
      else current = await this.createAttachmentPod(key, vmi, launcherPod, readyVolumes);
    }
    await this.cleanupAttachmentPods(key, current, old, vmi, readyVolumes.length);
  }

  /**
   * Upstream waits while the newest old pod is younger than a threshold of (ready volumes / -10)
   * nanoseconds, that is, only while it was created in the future; undefined when not waiting.
   */
  private rateLimited(oldPods: readonly Pod[], readyVolumes: number): number | undefined {
    const [newest] = oldPods;
    if (!newest) return undefined;
    const thresholdMs = Math.trunc(readyVolumes / -10) / 1e6;
    const age = this.deps.clock.now() - createdAt(newest);
    return age < thresholdMs ? thresholdMs - age : undefined;
  }

  private isUtilityVolumeWithBlockPVC(vmi: VirtualMachineInstance, volume: Volume): boolean {
    if (!isUtilityVolume(vmi, volume.name)) return false;
    const claimName = volume.persistentVolumeClaim?.claimName ?? "";
    const pvc = this.deps.pvcs(vmi.metadata?.namespace ?? "", claimName);
    if (!pvc) {
      throw new SyncError(
        `utility volume ${volume.name} references PVC ${claimName} which does not exist`,
        PVCNotReadyReason,
      );
    }
    return isPVCBlock(pvc.spec.volumeMode);
  }

  /**
   * Deletes the old attachment pods, except the newest one that runs while the current one does not
   * run yet (it is closest to what is wanted), and those holding a volume that left the spec but is
   * still mounted into the launcher.
   */
  private async cleanupAttachmentPods(
    key: string,
    current: Pod | undefined,
    oldPods: readonly Pod[],
    vmi: VirtualMachineInstance,
    readyVolumes: number,
  ): Promise<void> {
    const unplugged = new Map<string, string | undefined>();
    for (const status of vmi.status?.volumeStatus ?? []) {
      if (status.hotplugVolume) unplugged.set(status.name, status.phase);
    }
    for (const volume of vmi.spec.volumes ?? []) {
      if (isHotplugVolume(volume)) unplugged.delete(volume.name);
    }
    const currentNotRunning = current?.status?.phase !== "Running";
    let foundRunning = false;
    for (const pod of oldPods) {
      if (
        !foundRunning &&
        pod.status?.phase === "Running" &&
        !isBeingDeleted(pod) &&
        readyVolumes > 0 &&
        currentNotRunning
      ) {
        foundRunning = true;
        continue;
      }
      const stillMounted = (pod.spec.volumes ?? []).filter(
        (volume) => unplugged.has(volume.name) && !volumeReadyForPodDelete(unplugged.get(volume.name)),
      ).length;
      if (stillMounted > 0) {
        this.deps.logger.debug(
          { pod: pod.metadata.name },
          `Not deleting attachment pod ${pod.metadata.name ?? ""}, because there are still ${stillMounted} volumes to be unmounted`,
        );
        continue;
      }
      try {
        await this.deleteAttachmentPod(key, vmi, pod);
      } catch (err) {
        throw new SyncError(`Error deleting attachment pod ${errorMessage(err)}`, FailedDeletePodReason);
      }
    }
  }

  private async createAttachmentPod(
    key: string,
    vmi: VirtualMachineInstance,
    launcherPod: Pod,
    volumes: readonly Volume[],
  ): Promise<Pod | undefined> {
    const manifest = this.attachmentPodTemplate(vmi, launcherPod, volumes);
    if (!manifest) return undefined;
    manifest.metadata.namespace = vmi.metadata?.namespace ?? "";
    this.deps.podExpectations.expectCreations(key, 1);
    let created: Pod;
    try {
      created = await this.deps.podClient.create(manifest);
    } catch (err) {
      // The creation will never be observed.
      this.deps.podExpectations.creationObserved(key);
      const message = errorMessage(err);
      this.deps.reporter.event(
        vmi,
        "Warning",
        FailedCreatePodReason,
        `Error creating attachment pod: ${message}`,
      );
      throw new SyncError(`Error creating attachment pod ${message}`, FailedCreatePodReason);
    }
    this.deps.reporter.event(
      vmi,
      "Normal",
      SuccessfulCreatePodReason,
      `Created attachment pod ${created.metadata.name ?? ""}`,
    );
    return created;
  }

  /**
   * The pod for the volumes whose claims exist; a DataVolume's claim not populated yet is left out of
   * the claim map (its volume is still listed). Undefined when no claim is left, or one is missing.
   */
  private attachmentPodTemplate(
    vmi: VirtualMachineInstance,
    launcherPod: Pod,
    volumes: readonly Volume[],
  ): Pod | undefined {
    const namespace = launcherPod.metadata.namespace ?? "";
    const claimMap = new Map<string, PersistentVolumeClaim>();
    for (const volume of volumes) {
      const claimName = pvcNameFromVirtVolume(volume);
      const pvc = claimName === "" ? undefined : this.deps.pvcs(namespace, claimName);
      if (!pvc) return undefined;
      claimMap.set(volume.name, pvc);
    }
    for (const [volumeName, pvc] of claimMap) {
      let populated: boolean;
      try {
        const phase = dataVolumePhase(pvc, this.deps.dataVolumes ?? noDataVolumes);
        populated = phase === undefined || phase === "Succeeded" || phase === "PendingPopulation";
      } catch {
        return undefined;
      }
      if (!populated) {
        this.deps.reporter.info(
          vmi,
          `Unable to hotplug, claim ${pvc.metadata.name ?? ""} found, but not ready`,
        );
        claimMap.delete(volumeName);
      }
    }
    if (claimMap.size === 0) return undefined;
    return this.deps.templateService.renderHotplugAttachmentPod(volumes, launcherPod, vmi, claimMap);
  }

  /** Deletes at once (grace period 0); a pod already being deleted is left alone. */
  async deleteAttachmentPod(key: string, vmi: VirtualMachineInstance, pod: Pod): Promise<void> {
    if (isBeingDeleted(pod)) return;
    const name = pod.metadata.name ?? "";
    this.deps.podExpectations.expectDeletions(key, [keyOf(pod)]);
    try {
      await this.deps.podClient.delete(pod.metadata.namespace ?? "", name, { gracePeriodSeconds: 0 });
    } catch (err) {
      this.deps.podExpectations.deletionObserved(key, keyOf(pod));
      if (!isNotFound(err)) {
        this.deps.reporter.event(
          vmi,
          "Warning",
          FailedDeletePodReason,
          `Failed to delete attachment pod ${name}`,
        );
        throw err;
      }
    }
    this.deps.reporter.event(vmi, "Normal", SuccessfulDeletePodReason, `Deleted attachment pod ${name}`);
  }

  /** A final VMI: the attachment pods of its current launcher Pod go. */
  async deleteAllAttachmentPods(key: string, vmi: VirtualMachineInstance): Promise<void> {
    const pods = this.deps.podsIn(vmi.metadata?.namespace ?? "");
    const launcherPod = currentVMIPod(vmi, pods);
    if (!launcherPod) return;
    for (const pod of attachmentPodsOf(launcherPod, pods)) {
      try {
        await this.deleteAttachmentPod(key, vmi, pod);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw new SyncError(
          `failed to delete attachment pods: ${errorMessage(err)}`,
          FailedHotplugSyncReason,
        );
      }
    }
  }

  /** The attachment pods of the VMI's launcher Pods that ended; failures are only logged. */
  async deleteOrphanedAttachmentPods(key: string, vmi: VirtualMachineInstance): Promise<void> {
    const pods = this.deps.podsIn(vmi.metadata?.namespace ?? "");
    for (const launcherPod of pods) {
      if (!isControlledBy(launcherPod, vmi.metadata?.uid) || !podIsDown(launcherPod)) continue;
      for (const pod of attachmentPodsOf(launcherPod, pods)) {
        try {
          await this.deleteAttachmentPod(key, vmi, pod);
        } catch (err) {
          this.deps.reporter.error(vmi, err, `failed to delete attachment pod ${keyOf(pod)}`);
        }
      }
    }
  }
}

// The VMI's status.volumeStatus as virt-controller keeps it (upstream's watch/vmi/storage.go
// updateVolumeStatus and processHotplugVolumeStatus). One entry per volume, keeping what virt-handler
// wrote; a claim's entry carries the claim's info, so neither virt-handler nor the launcher (which sizes
// disk.img from it) has to read the claim. A hotplugged volume's entry names its attachment pod and
// moves from Pending/Bound to AttachedToNode once that pod exists, and to Detaching once the volume left
// the spec; the phases virt-handler sets (MountedToPod, Ready, UnMountedFromPod) are left to it, and
// the entry of an unplugged volume goes once no attachment pod holds it any more.
import type { VirtualMachineInstance, VolumeStatus } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import type { EventType } from "../../../controller/event-types.js";
import { isBeingDeleted } from "../../../controller/object.js";
import { isPVCBlock, persistentVolumeClaimInfo, pvcNameFromVirtVolume } from "../../../storage/types/pvc.js";
import { getHotplugVolumes, VolumePhase } from "../../../storage/types/volume.js";
import { FailedPvcNotFoundReason } from "./datavolumes.js";
import { PVCNotReadyReason, SuccessfulCreatePodReason, SuccessfulDeletePodReason } from "./reasons.js";
import {
  canMoveToAttachedPhase,
  findAttachmentPodByVolumeName,
  getActiveAndOldAttachmentPods,
} from "./volume-hotplug.js";

/** An event about the VMI the status computation asks for. */
export interface VMIEvent {
  type: EventType;
  reason: string;
  message: string;
}

export interface VolumeStatusInput {
  /** The launcher Pod: the volumes it does not carry are the hotplugged ones. */
  launcherPod: Pod;
  /** The Pods the launcher Pod controls. */
  attachmentPods: readonly Pod[];
  pvcs: PVCLookup;
  /** Receives the events upstream records while updating the status. */
  events: VMIEvent[];
}

/** The phase, reason and message a hotplugged volume without an attachment pod takes from its claim. */
function phaseFromClaim(
  claimName: string,
  namespace: string,
  pvcs: PVCLookup,
): Pick<VolumeStatus, "phase" | "reason" | "message"> {
  const pvc = pvcs(namespace, claimName);
  if (!pvc) {
    return {
      phase: VolumePhase.Pending,
      reason: FailedPvcNotFoundReason,
      message: `PVC ${claimName} not found`,
    };
  }
  if (pvc.status?.phase === "Pending") {
    return { phase: VolumePhase.Pending, reason: PVCNotReadyReason, message: "PVC is in phase ClaimPending" };
  }
  if (pvc.status?.phase === "Bound") {
    return { phase: VolumePhase.Bound, reason: PVCNotReadyReason, message: "PVC is in phase Bound" };
  }
  return { phase: VolumePhase.Pending, reason: PVCNotReadyReason, message: "PVC is in phase Lost" };
}

/** The attachment pod's uid is given once its one container is ready: virt-handler mounts from it then. */
function processHotplugVolumeStatus(
  vmi: VirtualMachineInstance,
  volumeName: string,
  claimName: string,
  status: VolumeStatus,
  attachmentPod: Pod | undefined,
  input: VolumeStatusInput,
): void {
  const hotplug = (status.hotplugVolume ??= {});
  let usePVCStatus = false;
  if (!attachmentPod) {
    if (status.phase !== VolumePhase.Ready) {
      delete hotplug.attachPodUID;
      usePVCStatus = true;
    }
  } else {
    hotplug.attachPodName = attachmentPod.metadata.name ?? "";
    const containers = attachmentPod.status?.containerStatuses ?? [];
    if (containers.length === 1 && containers[0]?.ready === true) {
      hotplug.attachPodUID = attachmentPod.metadata.uid ?? "";
    } else {
      // A new pod that is not ready yet replaces the old pod's uid.
      delete hotplug.attachPodUID;
    }
    if (canMoveToAttachedPhase(status.phase)) {
      status.phase = VolumePhase.AttachedToNode;
      status.message = `Created hotplug attachment pod ${hotplug.attachPodName}, for volume ${volumeName}`;
      status.reason = SuccessfulCreatePodReason;
      input.events.push({ type: "Normal", reason: status.reason, message: status.message });
    }
    // A volume plugged again while its old attachment pod is still going starts over from its claim.
    if (status.phase === VolumePhase.Detaching) usePVCStatus = true;
  }
  if (usePVCStatus)
    Object.assign(status, phaseFromClaim(claimName, vmi.metadata?.namespace ?? "", input.pvcs));
}

function processPVCInfo(
  status: VolumeStatus,
  claimName: string,
  namespace: string,
  pvcs: PVCLookup,
  isUtilityVolume: boolean,
): void {
  const pvc = pvcs(namespace, claimName);
  if (!pvc) return;
  if (isUtilityVolume && isPVCBlock(pvc.spec.volumeMode)) {
    status.phase = VolumePhase.Pending;
    status.reason = PVCNotReadyReason;
    status.message = `Utility volume PVC ${claimName} must be filesystem mode, not block mode`;
    return;
  }
  status.persistentVolumeClaimInfo = persistentVolumeClaimInfo(pvc);
}

/** virt-handler's phases stay while the volume is still mounted; anything else is Detaching. */
function phaseForUnpluggedVolume(phase: string | undefined): string {
  return phase === VolumePhase.Ready || phase === VolumePhase.MountedToPod ? phase : VolumePhase.Detaching;
}

/** Rewrites vmi.status.volumeStatus (sorted by name) from the spec, the pods and the claims. */
export function updateVolumeStatus(vmi: VirtualMachineInstance, input: VolumeStatusInput): void {
  const status = (vmi.status ??= {});
  const namespace = vmi.metadata?.namespace ?? "";
  const previous = new Map((status.volumeStatus ?? []).map((entry) => [entry.name, structuredClone(entry)]));
  const hotplugVolumes = getHotplugVolumes(vmi, input.launcherPod);
  const hotplugged = new Set(hotplugVolumes.map((volume) => volume.name));
  const { current: attachmentPod } = getActiveAndOldAttachmentPods(hotplugVolumes, input.attachmentPods);

  const next: VolumeStatus[] = [];
  for (const volume of vmi.spec.volumes ?? []) {
    const entry = previous.get(volume.name) ?? { name: volume.name, target: "" };
    previous.delete(volume.name);
    if (volume.memoryDump && !entry.memoryDumpVolume) entry.memoryDumpVolume = { claimName: volume.name };
    const claimName = pvcNameFromVirtVolume(volume);
    if (hotplugged.has(volume.name)) {
      processHotplugVolumeStatus(vmi, volume.name, claimName, entry, attachmentPod, input);
    }
    if (volume.persistentVolumeClaim || volume.dataVolume || volume.memoryDump) {
      processPVCInfo(entry, claimName, namespace, input.pvcs, false);
    }
    next.push(entry);
  }
  for (const utility of vmi.spec.utilityVolumes ?? []) {
    const entry = previous.get(utility.name) ?? { name: utility.name, target: "" };
    previous.delete(utility.name);
    processHotplugVolumeStatus(vmi, utility.name, utility.claimName, entry, attachmentPod, input);
    processPVCInfo(entry, utility.claimName, namespace, input.pvcs, true);
    next.push(entry);
  }
  // A volume that left the spec keeps its entry while an attachment pod still holds it.
  for (const [volumeName, entry] of previous) {
    const pod = findAttachmentPodByVolumeName(volumeName, input.attachmentPods);
    if (!pod) continue;
    const hotplug = (entry.hotplugVolume ??= {});
    hotplug.attachPodName = pod.metadata.name ?? "";
    hotplug.attachPodUID = pod.metadata.uid ?? "";
    entry.phase = phaseForUnpluggedVolume(entry.phase);
    if (entry.phase === VolumePhase.Detaching && isBeingDeleted(pod)) {
      entry.message = `Deleted hotplug attachment pod ${hotplug.attachPodName}, for volume ${volumeName}`;
      entry.reason = SuccessfulDeletePodReason;
      input.events.push({ type: "Normal", reason: entry.reason, message: entry.message });
    }
    next.push(entry);
  }
  status.volumeStatus = next.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// The VMI status virt-controller reports (upstream's vmi/lifecycle.go updateStatus), as a pure function
// of the VMI, its Pods and the sync result: the phase up to Scheduled (virt-handler owns it from there),
// conditions, active Pods, the launcher image, the node, and the finalizers that hold a VMI until its
// Pods are gone.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import {
  ComputeContainerName,
  DeprecatedVirtualMachineInstanceFinalizer,
  MigrationTransportUnix,
  MigrationTransportUnixAnnotation,
  NodeNameLabel,
  OutdatedLauncherImageLabel,
  VirtualMachineControllerFinalizer,
  VirtualMachineInstanceFinalizer,
} from "../../../util/constants.js";
import { MemoryOverheadAnnotation } from "../../services/pod-metadata.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { Logger } from "../../../controller/log.js";
import { updateVMIStatus } from "../../../network/controllers/vmi.js";
import { bytesQuantity } from "../../../util/quantity-math.js";
import { removeCondition, syncFailureCondition } from "../../../controller/conditions.js";
import { isPodDownOrGoingDown, isPodReady } from "../common/pod-state.js";
import { SyncError } from "../../../controller/sync-error.js";
import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { updateVolumeStatus, type VMIEvent } from "./storage.js";
import { FailedPvcNotFoundReason } from "./datavolumes.js";
import {
  syncEvictionCondition,
  syncPodScheduledCondition,
  syncReadyConditionFromPod,
} from "./vmi-conditions.js";
import {
  isFinal,
  isMarkedForDeletion,
  isRunning,
  isScheduled,
  isScheduling,
  isUnprocessed,
  isWaitingForSync,
  setPhaseTransitionTimestamp,
  VMIPhase,
} from "../../../controller/vmi-phase.js";

export interface VMIStatusInput {
  vmi: VirtualMachineInstance;
  /** The VMI's current launcher Pod (currentVMIPod). */
  pod: Pod | undefined;
  /** Every Pod the VMI controls. */
  ownedPods: readonly Pod[];
  /** The Pods the launcher Pod controls: the attachment pods of its hotplugged volumes. */
  attachmentPods: readonly Pod[];
  syncError: SyncError | undefined;
  /** The image this virt-controller renders launchers with. */
  launcherImage: string;
  /** The VmiMemoryOverheadReport gate: the launcher Pod's memory overhead goes into status.memory. */
  reportMemoryOverhead: boolean;
  /** Whether the VM named as the VMI's controller still exists with that uid. */
  hasOwnerVM: boolean;
  /** virt-controller's PVC cache, for the claims' info in the volume status. */
  pvcs: PVCLookup;
  now: number;
  log?: Logger;
}

export interface VMIStatusResult {
  /** The VMI as it should be: compare with the input to decide what to write. */
  vmi: VirtualMachineInstance;
  /** The sync error, replaced by an image pull error seen on the Pod. */
  syncError: SyncError | undefined;
  /** Events to record on the VMI (a hotplugged volume's attachment pod made or deleted). */
  events: VMIEvent[];
}

function removeFinalizer(vmi: VirtualMachineInstance, finalizer: string): void {
  const metadata = (vmi.metadata ??= {});
  metadata.finalizers = (metadata.finalizers ?? []).filter((name) => name !== finalizer);
}

function setLabel(vmi: VirtualMachineInstance, key: string, value: string | undefined): void {
  const metadata = (vmi.metadata ??= {});
  if (value === undefined) {
    if (metadata.labels) delete metadata.labels[key];
  } else {
    metadata.labels = { ...metadata.labels, [key]: value };
  }
}

/** Node of every Pod the VMI controls, keyed by Pod uid; left absent while there never was one. */
function setActivePods(vmi: VirtualMachineInstance, ownedPods: readonly Pod[]): void {
  const status = (vmi.status ??= {});
  if (ownedPods.length === 0 && status.activePods === undefined) return;
  status.activePods = Object.fromEntries(
    ownedPods.map((pod) => [pod.metadata.uid ?? "", pod.spec.nodeName ?? ""]),
  );
}

/** The launcher image the Pod runs; a VMI on an older image is labelled for the workload updater. */
function setLauncherContainerInfo(vmi: VirtualMachineInstance, pod: Pod, launcherImage: string): void {
  const image = pod.spec.containers.find((container) => container.name === ComputeContainerName)?.image ?? "";
  setLabel(vmi, OutdatedLauncherImageLabel, image !== "" && image !== launcherImage ? "" : undefined);
  (vmi.status ??= {}).launcherContainerImageVersion = image;
}

function setMemoryOverheadFromPod(vmi: VirtualMachineInstance, pod: Pod): void {
  const text = pod.metadata.annotations?.[MemoryOverheadAnnotation];
  if (text === undefined || !/^-?\d+$/.test(text)) return;
  const status = (vmi.status ??= {});
  status.memory = { ...status.memory, memoryOverhead: bytesQuantity(BigInt(text)).toString() };
}

/** The interfaces as the Pod's multus network-status shows them (upstream logs a failure and goes on). */
function updateNetworkStatus(vmi: VirtualMachineInstance, pod: Pod, log: Logger | undefined): void {
  try {
    updateVMIStatus(vmi, pod, log);
  } catch (err) {
    log?.error({ err }, "failed to update the interface status");
  }
}

/** ErrImagePull / ImagePullBackOff of any container become the sync error, shown on the VMI. */
function containerImageError(pod: Pod): SyncError | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const status of statuses) {
    const waiting = status.state?.waiting;
    if (waiting?.reason === "ErrImagePull" || waiting?.reason === "ImagePullBackOff") {
      return new SyncError(waiting.message ?? "", waiting.reason);
    }
  }
  return undefined;
}

/** The Pod is up and the VMI is handed to virt-handler on the Pod's node. */
function handOver(result: VMIStatusResult, pod: Pod, input: VMIStatusInput): void {
  const { vmi } = result;
  updateVolumeStatus(vmi, {
    launcherPod: pod,
    attachmentPods: input.attachmentPods,
    pvcs: input.pvcs,
    events: result.events,
  });
  updateNetworkStatus(vmi, pod, input.log);
  const status = (vmi.status ??= {});
  status.phase = VMIPhase.Scheduled;
  setLabel(vmi, NodeNameLabel, pod.spec.nodeName ?? "");
  status.nodeName = pod.spec.nodeName ?? "";
  if (pod.metadata.annotations?.[MigrationTransportUnixAnnotation] !== undefined)
    status.migrationTransport = MigrationTransportUnix;
}

/** A missing claim keeps the VMI from being scheduled: PodScheduled=False with the sync error. */
function unschedulable(status: NonNullable<VirtualMachineInstance["status"]>, error: SyncError): void {
  removeCondition(status, "PodScheduled");
  (status.conditions ??= []).push({
    type: "PodScheduled",
    status: "False",
    reason: "Unschedulable",
    message: error.message,
    lastProbeTime: null,
    lastTransitionTime: null,
  });
}

function scheduling(result: VMIStatusResult, input: VMIStatusInput, podExists: boolean): void {
  const { vmi } = result;
  const status = (vmi.status ??= {});
  removeCondition(status, "Provisioning");
  const pod = input.pod;
  if (!podExists || !pod) {
    status.phase = VMIPhase.Failed;
    return;
  }
  if (pod.status?.qosClass) status.qosClass = pod.status.qosClass as typeof status.qosClass;
  else delete status.qosClass;
  syncPodScheduledCondition(status, pod);
  result.syncError = containerImageError(pod) ?? result.syncError;
  if (isPodReady(pod) && !isMarkedForDeletion(input.vmi)) handOver(result, pod, input);
  else if (isPodDownOrGoingDown(pod)) status.phase = VMIPhase.Failed;
}

/** Once no Pod is left the VMI may go: its finalizer and the launcher bookkeeping are dropped. */
function final(vmi: VirtualMachineInstance, input: VMIStatusInput): void {
  if (input.ownedPods.length === 0) {
    removeFinalizer(vmi, DeprecatedVirtualMachineInstanceFinalizer);
    removeFinalizer(vmi, VirtualMachineInstanceFinalizer);
    setLabel(vmi, OutdatedLauncherImageLabel, undefined);
    if (vmi.status) delete vmi.status.launcherContainerImageVersion;
  }
  if (!input.hasOwnerVM && (vmi.metadata?.finalizers?.length ?? 0) > 0) {
    removeFinalizer(vmi, VirtualMachineControllerFinalizer);
  }
}

function removeRemovalFinalizers(vmi: VirtualMachineInstance, hasOwnerVM: boolean): void {
  removeFinalizer(vmi, DeprecatedVirtualMachineInstanceFinalizer);
  removeFinalizer(vmi, VirtualMachineInstanceFinalizer);
  if (!hasOwnerVM && (vmi.metadata?.finalizers?.length ?? 0) > 0)
    removeFinalizer(vmi, VirtualMachineControllerFinalizer);
}

export function computeVMIStatus(input: VMIStatusInput): VMIStatusResult {
  const vmi = structuredClone(input.vmi);
  const result: VMIStatusResult = { vmi, syncError: input.syncError, events: [] };
  const finalizers = vmi.metadata?.finalizers ?? [];
  if (finalizers.includes(DeprecatedVirtualMachineInstanceFinalizer)) {
    removeFinalizer(vmi, DeprecatedVirtualMachineInstanceFinalizer);
    if (!vmi.metadata?.finalizers?.includes(VirtualMachineInstanceFinalizer)) {
      (vmi.metadata ??= {}).finalizers = [
        ...(vmi.metadata?.finalizers ?? []),
        VirtualMachineInstanceFinalizer,
      ];
    }
  }
  const status = (vmi.status ??= {});
  const pod = input.pod;
  const podExists =
    pod !== undefined && pod.metadata.annotations?.["kubevirt.io/ephemeral-provisioning"] === undefined;
  setActivePods(vmi, input.ownedPods);
  syncReadyConditionFromPod(status, input.vmi, pod, input.now);
  if (podExists && pod) {
    setLauncherContainerInfo(vmi, pod, input.launcherImage);
    if (input.reportMemoryOverhead) setMemoryOverheadFromPod(vmi, pod);
  }

  const original = input.vmi;
  if (isUnprocessed(original)) {
    if (podExists) status.phase = VMIPhase.Scheduling;
    else if (isMarkedForDeletion(original)) status.phase = VMIPhase.Failed;
    else {
      status.phase = VMIPhase.Pending;
      if (result.syncError?.reason === FailedPvcNotFoundReason) unschedulable(status, result.syncError);
    }
  } else if (isScheduling(original)) {
    scheduling(result, input, podExists);
  } else if (isFinal(original)) {
    final(vmi, input);
  } else if (isRunning(original) || isScheduled(original)) {
    if (!podExists || !pod) status.phase = VMIPhase.Failed;
    else {
      updateVolumeStatus(vmi, {
        launcherPod: pod,
        attachmentPods: input.attachmentPods,
        pvcs: input.pvcs,
        events: result.events,
      });
      if (isRunning(original)) updateNetworkStatus(vmi, pod, input.log);
    }
  } else if (isWaitingForSync(original)) {
    if (isMarkedForDeletion(original)) removeRemovalFinalizers(vmi, input.hasOwnerVM);
    else if (podExists) status.phase = VMIPhase.Scheduling;
  }
  syncEvictionCondition(status, input.now);
  // virt-handler owns Scheduled and Running VMIs; their status is patched, not replaced, below.
  if (!isRunning(original) && !isScheduled(original)) {
    syncFailureCondition(status, result.syncError, input.now);
    setPhaseTransitionTimestamp(original.status, status, input.now);
  }
  return result;
}

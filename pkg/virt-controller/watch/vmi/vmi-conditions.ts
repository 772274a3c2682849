// The VMI conditions virt-controller owns: Ready (mirrored from the launcher Pod), PodScheduled (copied
// while scheduling fails), Synchronized (the last sync error) and EvictionRequested.
import type { VirtualMachineInstance, VirtualMachineInstanceCondition } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import {
  findCondition,
  hasCondition,
  hasConditionWithStatusAndReason,
  removeCondition,
  timestamp,
  updateCondition,
} from "../../../controller/conditions.js";
import { isPodDownOrGoingDown } from "../common/pod-state.js";
import { isRunning } from "../../../controller/vmi-phase.js";

export const VMIConditionType = {
  Ready: "Ready",
  Synchronized: "Synchronized",
  Paused: "Paused",
  PodScheduled: "PodScheduled",
  Provisioning: "Provisioning",
  EvictionRequested: "EvictionRequested",
} as const;

type VMIStatus = NonNullable<VirtualMachineInstance["status"]>;

const isTemporaryPod = (pod: Pod): boolean =>
  pod.metadata.annotations?.["kubevirt.io/ephemeral-provisioning"] !== undefined;

/** Ready follows the Pod once the guest runs; before that it says why the VMI is not ready. */
export function syncReadyConditionFromPod(
  status: VMIStatus,
  vmi: VirtualMachineInstance,
  pod: Pod | undefined,
  now: number,
): void {
  const at = timestamp(now);
  const notReady = (reason: string, message: string): VirtualMachineInstanceCondition => ({
    type: VMIConditionType.Ready,
    status: "False",
    reason,
    message,
    lastProbeTime: at,
    lastTransitionTime: at,
  });
  if (!pod || isTemporaryPod(pod)) {
    updateCondition(status, notReady("PodNotExists", "virt-launcher pod has not yet been scheduled"));
  } else if (isPodDownOrGoingDown(pod)) {
    updateCondition(status, notReady("PodTerminating", "virt-launcher pod is terminating"));
  } else if (!isRunning(vmi)) {
    updateCondition(status, notReady("GuestNotRunning", "Guest VM is not reported as running"));
  } else {
    const podReady = findCondition(pod.status, "Ready");
    updateCondition(
      status,
      podReady
        ? {
            type: VMIConditionType.Ready,
            status: podReady.status,
            reason: podReady.reason,
            message: podReady.message,
            lastProbeTime: podReady.lastProbeTime ?? null,
            lastTransitionTime: podReady.lastTransitionTime ?? null,
          }
        : notReady("PodConditionMissing", "virt-launcher pod is missing the Ready condition"),
    );
  }
}

/** While the Pod cannot be scheduled the VMI carries the Pod's PodScheduled=False condition. */
export function syncPodScheduledCondition(status: VMIStatus, pod: Pod): void {
  const podScheduled = findCondition(pod.status, "PodScheduled");
  if (podScheduled?.status === "False") {
    if (!hasCondition(status, VMIConditionType.PodScheduled)) {
      (status.conditions ??= []).push({
        type: VMIConditionType.PodScheduled,
        status: podScheduled.status,
        reason: podScheduled.reason,
        message: podScheduled.message,
        lastProbeTime: podScheduled.lastProbeTime ?? null,
        lastTransitionTime: podScheduled.lastTransitionTime ?? null,
      });
    }
  } else {
    removeCondition(status, VMIConditionType.PodScheduled);
  }
}

/** Synchronized=False carries the last sync error; it goes away once a sync succeeds. */
/** A VMI on a node being drained asks for its eviction (i.e. a migration). */
export function syncEvictionCondition(status: VMIStatus, now: number): void {
  if (!status.evacuationNodeName) {
    removeCondition(status, VMIConditionType.EvictionRequested);
    return;
  }
  if (
    hasConditionWithStatusAndReason(status, VMIConditionType.EvictionRequested, "True", "EvictionRequested")
  )
    return;
  const at = timestamp(now);
  updateCondition(status, {
    type: VMIConditionType.EvictionRequested,
    status: "True",
    reason: "EvictionRequested",
    message: "VMI is marked for eviction",
    lastProbeTime: at,
    lastTransitionTime: at,
  });
}

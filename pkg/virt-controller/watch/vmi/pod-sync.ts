// What virt-controller keeps in sync on a running launcher Pod (upstream's syncPausedConditionToPod and
// syncDynamicAnnotationsAndLabelsToPod): the readiness gate condition that follows the VMI's Paused
// condition, and the few labels and annotations that may change on the VMI after the Pod was created.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import {
  NodeNameLabel,
  OutdatedLauncherImageLabel,
  VirtualMachineUnpausedCondition,
} from "../../../util/constants.js";
import type { Pod, PodCondition } from "../../../api/core/v1/pod.js";
import { hasConditionWithStatus, timestamp } from "../../../controller/conditions.js";
import { escapeJsonPointer, PatchSet } from "../../../apimachinery/patch/patch.js";
import { VMIConditionType } from "./vmi-conditions.js";

const DynamicLabels = [NodeNameLabel, OutdatedLauncherImageLabel];
const DynamicAnnotations = [
  "descheduler.alpha.kubernetes.io/evict",
  "descheduler.alpha.kubernetes.io/prefer-no-eviction",
];

/**
 * The `kubevirt.io/virtual-machine-unpaused` condition the Pod should get (its readiness gate), or
 * undefined when the Pod already has the right one.
 */
export function desiredUnpausedCondition(
  vmi: VirtualMachineInstance,
  pod: Pod,
  now: number,
): PodCondition | undefined {
  const paused = hasConditionWithStatus(vmi.status, VMIConditionType.Paused, "True");
  const unpaused = hasConditionWithStatus(pod.status, VirtualMachineUnpausedCondition, "True");
  if (paused && !unpaused) return undefined;
  if (!paused && unpaused) return undefined;
  const at = timestamp(now);
  return paused
    ? {
        type: VirtualMachineUnpausedCondition,
        status: "False",
        reason: "Paused",
        message: "the virtual machine is paused",
        lastProbeTime: at,
        lastTransitionTime: at,
      }
    : {
        type: VirtualMachineUnpausedCondition,
        status: "True",
        reason: "NotPaused",
        message: "the virtual machine is not paused",
        lastProbeTime: at,
        lastTransitionTime: at,
      };
}

/** Copies the listed keys' presence and value from the VMI's map to the Pod's; undefined when equal. */
function syncedMap(
  keys: readonly string[],
  vmiMap: Record<string, string> = {},
  podMap: Record<string, string> = {},
) {
  const next = { ...podMap };
  let changed = false;
  for (const key of keys) {
    if (vmiMap[key] === podMap[key] && key in vmiMap === key in podMap) continue;
    changed = true;
    if (key in vmiMap) next[key] = vmiMap[key] ?? "";
    else delete next[key];
  }
  return changed ? next : undefined;
}

/** A JSON patch carrying the VMI's dynamic labels and annotations to the Pod; empty when in sync. */
export function dynamicMetadataPatch(vmi: VirtualMachineInstance, pod: Pod): PatchSet {
  const patch = new PatchSet();
  const labels = syncedMap(DynamicLabels, vmi.metadata?.labels, pod.metadata.labels);
  if (labels) patch.testAndSet("/metadata/labels", pod.metadata.labels, labels);
  const annotations = syncedMap(DynamicAnnotations, vmi.metadata?.annotations, pod.metadata.annotations);
  if (annotations) patch.testAndSet("/metadata/annotations", pod.metadata.annotations, annotations);
  return patch;
}

/** Adds annotations the ready Pod must carry (upstream's SyncPodAnnotations); empty when present. */
export function podAnnotationsPatch(pod: Pod, wanted: Record<string, string>): PatchSet {
  const patch = new PatchSet();
  for (const [key, value] of Object.entries(wanted)) {
    if (pod.metadata.annotations?.[key] === value) continue;
    patch.add(`/metadata/annotations/${escapeJsonPointer(key)}`, value);
  }
  return patch;
}

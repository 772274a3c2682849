// What virt-controller reads from a launcher Pod (upstream's pkg/controller/controller.go helpers).
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { KubeObject } from "../../../controller/object.js";
import { ComputeContainerName } from "../../../util/constants.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { isBeingDeleted } from "../../../controller/object.js";

export const podIsDown = (pod: Pod): boolean =>
  pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

function computeStatus(pod: Pod) {
  return pod.status?.containerStatuses?.find((status) => status.name === ComputeContainerName);
}

const isComputeContainerDown = (pod: Pod): boolean => computeStatus(pod)?.state?.terminated !== undefined;

const isComputeContainerFailed = (pod: Pod): boolean => {
  const terminated = computeStatus(pod)?.state?.terminated;
  return terminated !== undefined && terminated.exitCode !== 0;
};

export const isPodDownOrGoingDown = (pod: Pod): boolean =>
  podIsDown(pod) || isComputeContainerDown(pod) || isBeingDeleted(pod);

export const isPodFailedOrGoingDown = (pod: Pod): boolean =>
  pod.status?.phase === "Failed" || isComputeContainerFailed(pod) || isBeingDeleted(pod);

/**
 * Running, with the compute (and istio-proxy) container started and every other container ready. The
 * compute container may carry the VMI's readiness probe, so only its start is awaited.
 */
export function isPodReady(pod: Pod): boolean {
  if (isPodDownOrGoingDown(pod)) return false;
  for (const status of pod.status?.containerStatuses ?? []) {
    if (status.name === ComputeContainerName || status.name === "istio-proxy") {
      if (status.state?.running === undefined) return false;
    } else if (status.ready !== true) {
      return false;
    }
  }
  return pod.status?.phase === "Running";
}

export function isControlledBy(obj: KubeObject, ownerUID: string | undefined): boolean {
  if (!ownerUID) return false;
  return (obj.metadata?.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === ownerUID);
}

/** The VMI's newest Pod, among those on its node once it has one (a migration target lives elsewhere). */
export function currentVMIPod(vmi: VirtualMachineInstance, podsInNamespace: readonly Pod[]): Pod | undefined {
  let current: Pod | undefined;
  const nodeName = vmi.status?.nodeName ?? "";
  for (const pod of podsInNamespace) {
    if (!isControlledBy(pod, vmi.metadata?.uid)) continue;
    if (nodeName !== "" && nodeName !== (pod.spec.nodeName ?? "")) continue;
    const created = pod.metadata.creationTimestamp ?? "";
    if (!current || (current.metadata.creationTimestamp ?? "") < created) current = pod;
  }
  return current;
}

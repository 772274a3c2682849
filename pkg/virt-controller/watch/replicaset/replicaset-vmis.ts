// What the replica set controller reads from its VMIs and how it makes new ones (upstream's replicaset.go
// filters, calcDiff, getVirtualMachineBaseName, OwnerRef and the VMI built in scale).
import { hasConditionWithStatus, hasConditionWithStatusAndReason } from "../../../controller/conditions.js";
import { newControllerRef, isBeingDeleted, type OwnerReference } from "../../../controller/object.js";
import { toStored, type StoredVMI, type StoredVMIRS } from "../../../controller/resources.js";
import { isFinal } from "../../../controller/vmi-phase.js";
import { KubeVirtAPIVersion } from "../../../util/constants.js";

export const ReplicaSetKind = "VirtualMachineInstanceReplicaSet";
export const PodTerminatingReason = "PodTerminating";

/** The Ready condition copied from a VMI's Pod says the Pod is going away. */
const podTerminating = (vmi: StoredVMI): boolean =>
  hasConditionWithStatusAndReason(vmi.status, "Ready", "False", PodTerminatingReason);

/** Alive: not finished, not being deleted, its Pod not terminating. */
export const filterActiveVMIs = (vmis: readonly StoredVMI[]): StoredVMI[] =>
  vmis.filter((vmi) => !isFinal(vmi) && !isBeingDeleted(vmi) && !podTerminating(vmi));

export const filterReadyVMIs = (vmis: readonly StoredVMI[]): StoredVMI[] =>
  vmis.filter((vmi) => hasConditionWithStatus(vmi.status, "Ready", "True"));

/** Succeeded or Failed, and not yet being deleted. */
export const filterFinishedVMIs = (vmis: readonly StoredVMI[]): StoredVMI[] =>
  vmis.filter((vmi) => isFinal(vmi) && !isBeingDeleted(vmi));

/** Not finished but its Pod is terminating: as good as gone, so replaced like a finished one. */
export const filterUnknownVMIs = (vmis: readonly StoredVMI[]): StoredVMI[] =>
  vmis.filter((vmi) => !isFinal(vmi) && !isBeingDeleted(vmi) && podTerminating(vmi));

/** VMIs too many (positive) or missing (negative); replicas defaults to 1. */
export function calcDiff(rs: StoredVMIRS, vmis: readonly StoredVMI[]): number {
  return vmis.length - (rs.spec.replicas ?? 1);
}

export function replicaSetOwnerRef(rs: StoredVMIRS): OwnerReference {
  return newControllerRef(rs, KubeVirtAPIVersion, ReplicaSetKind);
}

/** The template's name, else its generateName, else the replica set's name: the apiserver appends a suffix. */
export function virtualMachineBaseName(rs: StoredVMIRS): string {
  const metadata = rs.spec.template.metadata;
  return metadata?.name || metadata?.generateName || (rs.metadata?.name ?? "");
}

/** A new VMI: the template's metadata and spec, a generated name, owned by the replica set. */
export function vmiFromTemplate(rs: StoredVMIRS): StoredVMI {
  const template = structuredClone(rs.spec.template);
  return toStored({
    apiVersion: KubeVirtAPIVersion,
    kind: "VirtualMachineInstance",
    metadata: {
      ...template.metadata,
      name: undefined,
      generateName: virtualMachineBaseName(rs),
      namespace: rs.metadata?.namespace,
      labels: template.metadata?.labels,
      ownerReferences: [replicaSetOwnerRef(rs)],
    },
    spec: template.spec ?? { domain: { devices: {} } },
  });
}

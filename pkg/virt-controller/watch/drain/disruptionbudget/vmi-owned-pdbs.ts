// Which PodDisruptionBudgets belong to a VMI, decided as upstream's disruptionbudget.go does: by the
// controlling ownerReference alone, of kind VirtualMachineInstance. The owner's uid is not compared, so a
// budget left behind by an earlier VMI of the same name belongs to its successor and is cleaned up too.
import type { V1PodDisruptionBudgetSpec } from "@kubernetes/client-node";
import { controllerRefOf, type KubeObject, type OwnerReference } from "../../../../controller/object.js";

export interface PodDisruptionBudget extends KubeObject {
  spec?: V1PodDisruptionBudgetSpec;
}

const VMIKind = "VirtualMachineInstance";

/** The queue key (namespace/name) of the VMI a controlling reference names; undefined for other kinds. */
export function vmiKeyOfRef(namespace: string, ref: OwnerReference | undefined): string | undefined {
  if (ref?.kind !== VMIKind) return undefined;
  return `${namespace}/${ref.name}`;
}

/** The queue key of the VMI controlling the object, if a VMI does. */
export function controllingVMIKey(obj: KubeObject): string | undefined {
  return vmiKeyOfRef(obj.metadata?.namespace ?? "", controllerRefOf(obj));
}

/** Of the budgets in the VMI's namespace, those a VMI of that name controls. */
export function pdbsOwnedBy(
  vmiName: string,
  pdbsInNamespace: readonly PodDisruptionBudget[],
): PodDisruptionBudget[] {
  return pdbsInNamespace.filter((pdb) => {
    const ref = controllerRefOf(pdb);
    return ref?.kind === VMIKind && ref.name === vmiName;
  });
}

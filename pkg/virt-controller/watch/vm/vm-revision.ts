// The ControllerRevision a VM is started from (upstream's createVMRevision): a snapshot of the VM spec
// named `revision-start-vm-<vm uid>-<generation>`, owned by the VM, its instance type and preference
// pinned to the revisions in use; older ones are deleted. The VMI
// records its name, and the VM's observedGeneration is read back from it.
import type { VirtualMachine, VirtualMachineSpec } from "../../../api/generated/v1.js";
import type { KubeObject } from "../../../controller/object.js";
import { vmControllerReference } from "./vm-setup.js";

export interface ControllerRevision extends KubeObject {
  data?: { spec?: VirtualMachineSpec };
  revision: number;
}

export function revisionNamePrefix(vmUID: string): string {
  return `revision-start-vm-${vmUID}`;
}

export function revisionName(vm: VirtualMachine): string {
  return `${revisionNamePrefix(vm.metadata?.uid ?? "")}-${vm.metadata?.generation ?? 0}`;
}

/** The generation a revision name ends in, or undefined when it is not one of ours. */
export function generationFromRevisionName(name: string): number | undefined {
  const suffix = name.slice(name.lastIndexOf("-") + 1);
  return /^\d+$/.test(suffix) ? Number(suffix) : undefined;
}

/**
 * The VM spec with the instance type and preference revisions its status records written in as their
 * revisionName (upstream's patchVMRevision), so the start revision names what the VMI was expanded from.
 */
function specPinningRevisions(vm: VirtualMachine): VirtualMachineSpec {
  const spec = structuredClone(vm.spec);
  const instancetypeRevision = vm.status?.instancetypeRef?.controllerRevisionRef?.name;
  if (spec.instancetype && instancetypeRevision) spec.instancetype.revisionName = instancetypeRevision;
  const preferenceRevision = vm.status?.preferenceRef?.controllerRevisionRef?.name;
  if (spec.preference && preferenceRevision) spec.preference.revisionName = preferenceRevision;
  return spec;
}

export function newVMRevision(vm: VirtualMachine): ControllerRevision {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: revisionName(vm),
      namespace: vm.metadata?.namespace ?? "",
      ownerReferences: [vmControllerReference(vm)],
    },
    data: { spec: specPinningRevisions(vm) },
    revision: vm.metadata?.generation ?? 0,
  };
}

/** The spec of the VM's newest start revision (upstream's getLastVMRevisionSpec): what its VMI runs. */
export function lastRevisionSpec(
  vm: VirtualMachine,
  owned: readonly ControllerRevision[],
): VirtualMachineSpec | undefined {
  const prefix = revisionNamePrefix(vm.metadata?.uid ?? "");
  let newest: { generation: number; revision: ControllerRevision } | undefined;
  for (const revision of owned) {
    const name = revision.metadata?.name ?? "";
    if (!name.includes(prefix)) continue;
    const generation = generationFromRevisionName(name);
    if (generation === undefined) continue;
    if (!newest || generation > newest.generation) newest = { generation, revision };
  }
  return newest?.revision.data?.spec;
}

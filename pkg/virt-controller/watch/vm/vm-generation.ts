// Which VM generation a VMI runs (upstream's generation annotation handling in vm.go): the VMI carries
// kubevirt.io/vm-generation; when the VM's spec changes without touching the template (e.g. only its run
// strategy), the annotation moves forward, so observedGeneration keeps up with desiredGeneration.
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { jsonEqual } from "../common/equality.js";
import { VirtualMachineGenerationAnnotation } from "../../../util/constants.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { generationFromRevisionName, type ControllerRevision } from "./vm-revision.js";

/** The generation annotation as a number; a malformed one counts as absent (and is rewritten). */
export function vmiGeneration(vmi: VirtualMachineInstance): number | undefined {
  const text = vmi.metadata?.annotations?.[VirtualMachineGenerationAnnotation];
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

/** A patch setting the VMI's generation annotation (guarded by the annotations it was computed from). */
export function generationAnnotationPatch(vmi: VirtualMachineInstance, generation: number): PatchSet {
  const annotations = vmi.metadata?.annotations;
  return new PatchSet().testAndSet("/metadata/annotations", annotations, {
    ...annotations,
    [VirtualMachineGenerationAnnotation]: String(generation),
  });
}

/**
 * The generation the VMI should be annotated with now, or undefined to leave it: the VM's generation,
 * when the VMI was started from a revision whose template equals the VM's current template.
 */
export function bumpedGeneration(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance,
  startedFrom: ControllerRevision | undefined,
): number | undefined {
  const generation = vm.metadata?.generation ?? 0;
  if (vmi.metadata?.annotations?.[VirtualMachineGenerationAnnotation] === String(generation))
    return undefined;
  if (!startedFrom) return undefined;
  return jsonEqual(startedFrom.data?.spec?.template, vm.spec.template) ? generation : undefined;
}

/** For a VMI without the annotation: the generation its revision name records. */
export function generationFromRevision(vmi: VirtualMachineInstance): number | undefined {
  const name = vmi.status?.virtualMachineRevisionName;
  return name ? generationFromRevisionName(name) : undefined;
}

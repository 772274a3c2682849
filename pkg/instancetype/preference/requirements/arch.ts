// Upstream pkg/instancetype/preference/requirements (arch.go): the architecture a preference requires,
// against the VM's (defaulted) spec.architecture.
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import type { VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";
import { Path } from "../../../api/field.js";
import { RequirementFailure } from "./failure.js";

export const requiredArchitectureNotUsed = (required: string, requested: string) =>
  `preference requires architecture ${required} but ${requested} is being requested`;

export function checkArch(
  preference: VirtualMachinePreferenceSpec,
  vmi: VirtualMachineInstanceSpec,
): RequirementFailure | undefined {
  const required = preference.requirements?.architecture ?? "";
  const requested = vmi.architecture ?? "";
  if (requested === required) return undefined;
  return new RequirementFailure(
    [Path.of("spec", "template", "spec", "architecture")],
    requiredArchitectureNotUsed(required, requested),
  );
}

// Upstream pkg/instancetype/preference/requirements (memory.go): the guest memory a preference requires.
// The VM's own domain.memory.guest counts when set (with an instance type it holds the instance type's
// memory by now); otherwise the instance type's, otherwise none.
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { Path } from "../../../api/field.js";
import { Quantity } from "../../../defaults/quantity.js";
import { RequirementFailure } from "./failure.js";

export const insufficientInstancetypeMemory = (provided: string, required: string) =>
  `insufficient Memory resources of ${provided} provided by instance type, preference requires ${required}`;
export const insufficientVMMemory = (provided: string, required: string) =>
  `insufficient Memory resources of ${provided} provided by VirtualMachine, preference requires ${required}`;

export function checkMemory(
  instancetype: VirtualMachineInstancetypeSpec | undefined,
  preference: VirtualMachinePreferenceSpec,
  vmi: VirtualMachineInstanceSpec | undefined,
): RequirementFailure | undefined {
  const required = Quantity.parse(preference.requirements?.memory?.guest ?? "0");
  let message = insufficientVMMemory;
  let path = Path.of("spec", "template", "spec", "domain", "memory");
  let provided = Quantity.parse("0Mi");
  if (instancetype !== undefined) {
    message = insufficientInstancetypeMemory;
    path = Path.of("spec", "instancetype");
    provided = Quantity.parse(instancetype.memory.guest);
  }
  const vmGuest = vmi?.domain.memory?.guest;
  if (vmGuest !== undefined && vmGuest !== null) provided = Quantity.parse(vmGuest);
  if (provided.compare(required) >= 0) return undefined;
  return new RequirementFailure([path], message(provided.toString(), required.toString()));
}

// Upstream pkg/instancetype/preference/requirements: whether a VM (its template spec with the instance
// type applied and defaults set) provides what its preference requires, checked CPU, memory, then
// architecture; the first shortfall is the answer.
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { checkArch } from "./arch.js";
import { checkCPU } from "./cpu.js";
import type { RequirementFailure } from "./failure.js";
import { checkMemory } from "./memory.js";

export function checkPreferenceRequirements(
  instancetype: VirtualMachineInstancetypeSpec | undefined,
  preference: VirtualMachinePreferenceSpec | undefined,
  vmi: VirtualMachineInstanceSpec,
): RequirementFailure | undefined {
  const requirements = preference?.requirements;
  if (preference === undefined || requirements === undefined) return undefined;
  if (requirements.cpu !== undefined) {
    const failure = checkCPU(instancetype, preference, vmi);
    if (failure) return failure;
  }
  if (requirements.memory !== undefined) {
    const failure = checkMemory(instancetype, preference, vmi);
    if (failure) return failure;
  }
  if (requirements.architecture !== undefined) return checkArch(preference, vmi);
  return undefined;
}

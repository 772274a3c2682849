// Upstream's featuregate.ValidateFeatureGates (validator.go): for every gate listed in
// developerConfiguration.featureGates, in the listed order, that is discontinued and whose API the VMI
// still uses, a FieldValueNotSupported cause with the gate's message and no field.
import type { StatusCause } from "../../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import { FieldErrorType } from "../../api/field.js";
import { featureGateInfo } from "./feature-gates.js";

export function validateFeatureGates(
  featureGates: readonly string[],
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const name of featureGates) {
    const gate = featureGateInfo(name);
    if (gate?.state === "Discontinued" && gate.vmiSpecUsed?.(spec)) {
      causes.push({ reason: FieldErrorType.NotSupported, message: gate.message });
    }
  }
  return causes;
}

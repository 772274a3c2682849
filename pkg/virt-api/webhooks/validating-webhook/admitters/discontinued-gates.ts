// Upstream's featuregate.ValidateFeatureGates as the VMI, VM, replica set and pool admitters call it:
// a discontinued feature gate still listed in the cluster configuration, whose API the VMI uses, is
// refused with the gate's message (and no field).
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { validateFeatureGates } from "../../../../virt-config/featuregate/validator.js";
import type { StatusCause } from "../../../../api/causes.js";

export function validateDiscontinuedFeatureGates(
  config: ClusterConfig,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  return validateFeatureGates(config.getConfig().developerConfiguration?.featureGates ?? [], spec);
}

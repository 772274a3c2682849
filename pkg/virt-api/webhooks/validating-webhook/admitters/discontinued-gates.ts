// Upstream's featuregate.ValidateFeatureGates: a discontinued feature gate still listed in the cluster
// configuration, whose API the VMI uses, is refused with the gate's message (and no field).
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { notSupportedCause, type StatusCause } from "./causes.js";

const DISCONTINUED_GATE_USES: ReadonlyArray<{
  gate: string;
  message: string;
  usedBy: (spec: VirtualMachineInstanceSpec) => boolean;
}> = [
  {
    gate: FeatureGate.Passt,
    message:
      "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
    usedBy: (spec) => (spec.domain.devices.interfaces ?? []).some((iface) => iface.passt !== undefined),
  },
  {
    gate: FeatureGate.Macvtap,
    message:
      "Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
    usedBy: (spec) => (spec.domain.devices.interfaces ?? []).some((iface) => iface.macvtap !== undefined),
  },
];

export function validateDiscontinuedFeatureGates(
  config: ClusterConfig,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  // A discontinued gate reads as enabled exactly when it is listed in featureGates.
  return DISCONTINUED_GATE_USES.filter(
    (entry) => config.isFeatureGateEnabled(entry.gate) && entry.usedBy(spec),
  ).map((entry) => notSupportedCause(entry.message));
}

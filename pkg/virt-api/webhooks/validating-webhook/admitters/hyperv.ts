// Hyper-V enlightenment rules (upstream pkg/virt-api/webhooks/hyperv.go), checked on VMI creation only:
// an enabled enlightenment whose prerequisite the user switched off, eVMCS without the vmx CPU feature,
// and explicit enlightenments together with hypervPassthrough.
import type { FeatureState, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { VmxFeature } from "../../../../defaults/hyperv.js";
import { invalidCause, requiredCause, type Path, type StatusCause } from "../../../../api/causes.js";

type HypervKey = "vpindex" | "synic" | "vapic" | "evmcs" | "ipi" | "tlbflush" | "synictimer";

/** Each enlightenment and the one it needs. */
const DEPENDENCIES: ReadonlyArray<readonly [HypervKey, HypervKey]> = [
  ["evmcs", "vapic"],
  ["ipi", "vpindex"],
  ["tlbflush", "vpindex"],
  ["synictimer", "synic"],
  ["synic", "vpindex"],
];

const isEnabled = (state: FeatureState | undefined): boolean => state?.enabled === true;

/**
 * `field` is `spec.domain.features.hyperv`. Upstream appends `domain.features.hyperv` to it once more for
 * the dependency causes; the doubled path is kept as KubeVirt reports it.
 */
export function validateHyperv(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const features = spec.domain.features;
  const hyperv = features?.hyperv;
  if (hyperv === undefined) return [];
  const causes: StatusCause[] = [];
  const hypervField = field.child("domain", "features", "hyperv");
  for (const [feature, prerequisite] of DEPENDENCIES) {
    if (!isEnabled(hyperv[feature]) || isEnabled(hyperv[prerequisite])) continue;
    const at = hypervField.child(feature);
    causes.push(
      invalidCause(
        `'${at.toString()}' requires '${hypervField.child(prerequisite).toString()}', which was disabled.`,
        at,
      ),
    );
  }
  causes.push(...validateEVMCSDependency(spec));
  if (features?.hypervPassthrough !== undefined) {
    causes.push(
      invalidCause(
        "Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough.",
        field,
      ),
    );
  }
  return causes;
}

/** eVMCS needs the vmx CPU feature required; upstream hard-codes these field paths. */
function validateEVMCSDependency(spec: VirtualMachineInstanceSpec): StatusCause[] {
  const evmcs = spec.domain.features?.hyperv?.evmcs;
  if (evmcs === undefined || evmcs.enabled === false) return [];
  const cpuFeatures = spec.domain.cpu?.features ?? [];
  if (cpuFeatures.length === 0) {
    return [
      requiredCause(
        `${VmxFeature.name} cpu feature is required when evmcs is set`,
        "spec.domain.cpu.features",
      ),
    ];
  }
  return cpuFeatures.flatMap((feature, index) =>
    feature.name === VmxFeature.name && feature.policy !== VmxFeature.policy
      ? [
          invalidCause(
            `${VmxFeature.name} cpu feature has to be set to ${VmxFeature.policy} policy`,
            `spec.domain.cpu.features[${index}].policy`,
          ),
        ]
      : [],
  );
}

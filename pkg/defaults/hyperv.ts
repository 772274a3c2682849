// Hyper-V enlightenments depend on each other; QEMU rejects a guest that enables one without its
// prerequisite. Upstream fills in missing prerequisites (best effort) instead of leaving the user with
// QEMU's error (pkg/defaults/hyperv.go). A prerequisite the user switched off is an error for the
// validating webhook to report; here it only stops the walk.
import type {
  CPUFeature,
  FeatureHyperv,
  FeatureState,
  VirtualMachineInstanceSpec,
} from "../api/generated/v1.js";

const HYPERV_PATH = "spec.domain.features.hyperv";

/** A CPU feature the eVMCS enlightenment needs from the host. */
export const VmxFeature: CPUFeature = { name: "vmx", policy: "require" };

interface HypervDependency {
  field: string;
  /** Read when the walk reaches it, so a prerequisite enabled earlier in the walk counts. */
  state: () => FeatureState | undefined;
  requires: { field: string; get: () => FeatureState | undefined; enable: () => void };
}

const isMissing = (state: FeatureState | undefined) => state?.enabled === undefined || state.enabled === null;
const isEnabled = (state: FeatureState | undefined) => state?.enabled === true;

function requirement(hyperv: FeatureHyperv, key: "vpindex" | "synic" | "vapic") {
  return {
    field: `${HYPERV_PATH}.${key}`,
    get: () => hyperv[key],
    enable: () => {
      hyperv[key] = { ...hyperv[key], enabled: true };
    },
  };
}

/** Leaves first: enabling synic for synictimer must still pull in vpindex for synic. */
function dependencies(hyperv: FeatureHyperv): HypervDependency[] {
  const vpindex = requirement(hyperv, "vpindex");
  const synic = requirement(hyperv, "synic");
  const vapic = requirement(hyperv, "vapic");
  return [
    { field: `${HYPERV_PATH}.evmcs`, state: () => hyperv.evmcs, requires: vapic },
    { field: `${HYPERV_PATH}.ipi`, state: () => hyperv.ipi, requires: vpindex },
    { field: `${HYPERV_PATH}.tlbflush`, state: () => hyperv.tlbflush, requires: vpindex },
    { field: `${HYPERV_PATH}.synictimer`, state: () => hyperv.synictimer, requires: synic },
    { field: `${HYPERV_PATH}.synic`, state: () => hyperv.synic, requires: vpindex },
  ];
}

function addVmxFeature(spec: VirtualMachineInstanceSpec): void {
  const cpu = (spec.domain.cpu ??= {});
  const features = (cpu.features ??= []);
  const existing = features.find((feature) => feature.name === VmxFeature.name);
  if (existing) existing.policy = VmxFeature.policy;
  else features.push({ ...VmxFeature });
}

/** Enables missing prerequisites; returns upstream's message for the first one the user disabled. */
export function setHypervFeatureDependencies(spec: VirtualMachineInstanceSpec): string | undefined {
  const hyperv = spec.domain.features?.hyperv;
  if (!hyperv) return undefined;
  for (const dependency of dependencies(hyperv)) {
    if (!isEnabled(dependency.state())) continue;
    const required = dependency.requires.get();
    if (isMissing(required)) dependency.requires.enable();
    else if (!isEnabled(required))
      return `'${dependency.field}' requires '${dependency.requires.field}', which was disabled.`;
  }
  const evmcs = hyperv.evmcs;
  if (evmcs && (isMissing(evmcs) || evmcs.enabled === true)) addVmxFeature(spec);
  return undefined;
}

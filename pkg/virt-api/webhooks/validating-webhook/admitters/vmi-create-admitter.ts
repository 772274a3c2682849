// The VirtualMachineInstance create admitter (upstream vmi-create-admitter.go): after the mutating
// webhook has defaulted the VMI, the shared spec rules, the rules only a VMI has (every volume has a disk,
// some memory is requested, architecture limits, Hyper-V), and its metadata; then what kubevirt-ts does
// not build yet, the subset the launcher's converter also enforces.
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import { validatePerArchitecture } from "./arch.js";
import { Path, fieldErrorCauses, specPath, type StatusCause } from "../../../../api/causes.js";
import { validateDiscontinuedFeatureGates } from "./discontinued-gates.js";
import { validateDisks } from "./disks.js";
import { validateHyperv } from "./hyperv.js";
import { validateMemoryIsRequested } from "./memory.js";
import { validateVMIMetadata } from "./metadata.js";
import { validateDiscontinuedBindings, validateNetworks } from "./network.js";
import { withNotYetSupported } from "./not-yet-supported.js";
import { validateVirtualMachineInstanceSpec, type SpecValidator } from "./spec.js";
import {
  validateContainerDisks,
  validateUtilityVolumesNotPresentOnCreation,
  validateVolumesHaveDisks,
} from "./storage.js";

/** SIG-network's validator as virt-api registers it: discontinued bindings, then the network rules. */
export const networkSpecValidator: SpecValidator = (field, spec, config) => [
  ...validateDiscontinuedBindings(field, spec),
  ...validateNetworks(field, spec, config),
];

/** SIG-storage's validator as virt-api registers it (upstream pkg/storage/admitters Validate). */
export const storageSpecValidator: SpecValidator = (field, spec) => [
  ...validateContainerDisks(field, spec),
  ...validateUtilityVolumesNotPresentOnCreation(field, spec),
  ...validateDisks(field.child("domain", "devices", "disks"), spec.domain.devices.disks ?? []),
];

/**
 * The extra validators virt-api passes to the VMI create admitter. They repeat rules that the shared spec
 * validation also runs, so upstream reports those causes twice; kept so denials read the same.
 */
export const DEFAULT_EXTRA_SPEC_VALIDATORS: readonly SpecValidator[] = [
  networkSpecValidator,
  storageSpecValidator,
];

/** The causes for a parsed VMI. */
export function validateVMICreation(
  vmi: VirtualMachineInstance,
  config: ClusterConfig,
  isKubeVirtServiceAccount: boolean,
  extraSpecValidators: readonly SpecValidator[] = DEFAULT_EXTRA_SPEC_VALIDATORS,
): StatusCause[] {
  const spec = vmi.spec;
  const field = specPath();
  const metadata = Path.of("metadata");
  const upstreamCauses = [
    ...validateDiscontinuedFeatureGates(config, spec),
    ...extraSpecValidators.flatMap((validate) => validate(field, spec, config)),
    ...validateVirtualMachineInstanceSpec(field, spec, config),
    ...validateVolumesHaveDisks(field, spec),
    ...validateMemoryIsRequested(field, spec),
    ...validateVMIMetadata(metadata, vmi.metadata, config, isKubeVirtServiceAccount),
    ...validateHyperv(field.child("domain", "features", "hyperv"), spec),
    ...validatePerArchitecture(field, spec),
  ];
  return withNotYetSupported(
    upstreamCauses,
    { at: metadata, value: vmi.metadata },
    { at: field, value: spec },
  );
}

export function admitVMICreate(request: ValidationRequest, context: ValidationContext): Verdict {
  const parsed = parseDefinition("v1.VirtualMachineInstance", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const isKubeVirtServiceAccount = context.kubeVirtServiceAccounts.has(request.username ?? "");
  const causes = validateVMICreation(parsed.value, context.clusterConfig, isKubeVirtServiceAccount);
  return causes.length > 0 ? refused(causes) : accepted();
}

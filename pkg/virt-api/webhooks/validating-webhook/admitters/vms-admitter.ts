// The VirtualMachine admitter (upstream vms-admitter.go): the VMI template is validated after the VM
// defaults are applied to a copy, plus the run strategy and live-update bounds. Like upstream it answers
// in stages, each refusing on its own: the referenced instance type and preference applied to a copy
// (pkg/instancetype/webhooks/vm) and the preference's requirements checked on it, discontinued APIs on creation, then the VM spec of that copy.
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachine, VirtualMachineSpec } from "../../../../api/generated/v1.js";
import { setDefaultVirtualMachineInstanceSpec } from "../../../../defaults/defaults.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import {
  cause,
  CauseType,
  fieldErrorCauses,
  invalidCause,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateDiscontinuedFeatureGates } from "./discontinued-gates.js";
import { validateLiveUpdateFeatures, validateRunStrategy } from "./lifecycle.js";
import { validateVMIMetadata } from "./metadata.js";
import { validateDiscontinuedBindings } from "./network.js";
import { withNotYetSupported } from "./not-yet-supported.js";
import { templateSpecOrEmpty, validateVirtualMachineInstanceSpec } from "./spec.js";
import { isBeingDeleted } from "../../../../controller/object.js";
import type { InstancetypeVMAdmitter } from "../../../../instancetype/webhooks/vm/admitter.js";
import { checkPreferenceRequirements } from "../../../../instancetype/preference/requirements/checker.js";
import {
  validateDataVolumeTemplateNamespaces,
  validateDataVolumeTemplates,
} from "../../../../storage/admitters/data-volume-template.js";
import { semanticEqual } from "../../../../apimachinery/equality.js";

export const RunningDeprecationWarning = "spec.running is deprecated, please use spec.runStrategy instead.";

/** Upstream's ValidateVirtualMachineSpec on a VM spec whose template spec is already defaulted. */
export function validateVirtualMachineSpec(
  field: Path,
  spec: VirtualMachineSpec,
  config: ClusterConfig,
  isKubeVirtServiceAccount: boolean,
): StatusCause[] {
  // The schema requires a template; Go code reaching here without one answers like this.
  if ((spec as Partial<VirtualMachineSpec>).template === undefined) {
    return [requiredCause("missing virtual machine template.", field.child("template"))];
  }
  const templateMetadata = field.child("template", "metadata");
  const templateSpec = templateSpecOrEmpty(spec.template.spec);
  const templateSpecAt = field.child("template", "spec");
  const upstreamCauses = [
    ...validateVMIMetadata(templateMetadata, spec.template.metadata, config, isKubeVirtServiceAccount),
    ...validateVirtualMachineInstanceSpec(templateSpecAt, templateSpec, config),
    ...validateDataVolumeTemplates(field, spec),
    ...validateRunStrategy(field, spec, config),
    ...validateLiveUpdateFeatures(field, spec, config),
  ];
  return withNotYetSupported(
    upstreamCauses,
    { at: templateMetadata, value: spec.template.metadata },
    { at: templateSpecAt, value: templateSpec },
  );
}

/** The stages of upstream's Admit for a parsed VM; the first stage with causes decides. */
export function validateVirtualMachine(
  vm: VirtualMachine,
  operation: ValidationRequest["operation"],
  config: ClusterConfig,
  isKubeVirtServiceAccount: boolean,
  /** The VM as sent, when `vm` is a copy with its instance type applied: feature gates check its template. */
  original: VirtualMachine = vm,
): Verdict {
  // A VM being deleted is let through so its deletion never races other in-flight changes.
  if (isBeingDeleted(vm)) return accepted();
  const field = specPath();
  const defaulted = setDefaultVirtualMachineInstanceSpec(config, templateSpecOrEmpty(vm.spec.template.spec));
  if (!defaulted.ok) return refused([invalidCause(defaulted.message, field.child("template", "spec"))]);
  const spec: VirtualMachineSpec = { ...vm.spec, template: { ...vm.spec.template, spec: defaulted.value } };
  if (operation === "CREATE") {
    const gateCauses = validateDiscontinuedFeatureGates(
      config,
      original.spec.template.spec ?? defaulted.value,
    );
    if (gateCauses.length > 0) return refused(gateCauses);
    const bindingCauses = validateDiscontinuedBindings(field, defaulted.value);
    if (bindingCauses.length > 0) return refused(bindingCauses);
  }
  const causes = validateVirtualMachineSpec(field, spec, config, isKubeVirtServiceAccount);
  if (causes.length > 0) return refused(causes);
  return accepted(vm.spec.running === undefined ? [] : [RunningDeprecationWarning]);
}

/** Upstream's Admit without instance type lookups: a VM's references are not applied. */
export function admitVirtualMachine(request: ValidationRequest, context: ValidationContext): Verdict {
  const parsed = parseDefinition("v1.VirtualMachine", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const isKubeVirtServiceAccount = context.kubeVirtServiceAccounts.has(request.username ?? "");
  const verdict = validateVirtualMachine(
    parsed.value,
    request.operation,
    context.clusterConfig,
    isKubeVirtServiceAccount,
  );
  return verdict.causes.length === 0 ? admitStorage(request, parsed.value, verdict) : verdict;
}

/** Upstream's storage admitter, after the spec checks: the embedded DataVolumes' namespaces. */
function admitStorage(request: ValidationRequest, vm: VirtualMachine, verdict: Verdict): Verdict {
  if (isBeingDeleted(vm)) return verdict;
  const old = request.operation === "CREATE" ? "create" : oldDataVolumeTemplates(request.oldObject);
  const causes = validateDataVolumeTemplateNamespaces(vm, request.namespace ?? "", old, semanticEqual);
  return causes.length > 0 ? refused(causes) : verdict;
}

function oldDataVolumeTemplates(oldObject: unknown): VirtualMachine["spec"]["dataVolumeTemplates"] {
  const parsed = parseDefinition("v1.VirtualMachine", oldObject);
  return parsed.ok ? parsed.value.spec.dataVolumeTemplates : undefined;
}

/** Upstream's Admit: the VM is validated with its instance type and preference applied to a copy. */
export async function admitVirtualMachineWithInstancetypes(
  request: ValidationRequest,
  context: ValidationContext,
  instancetypes: Pick<InstancetypeVMAdmitter, "applyToVM">,
): Promise<Verdict> {
  const parsed = parseDefinition("v1.VirtualMachine", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const vm = parsed.value;
  if (isBeingDeleted(vm)) return accepted();
  const applied = structuredClone(vm);
  const { instancetype, preference, causes } = await instancetypes.applyToVM(applied);
  if (causes.length > 0) return refused(causes);
  // The preference's requirements are checked against the copy once the VM defaults are set on it.
  const defaulted = setDefaultVirtualMachineInstanceSpec(
    context.clusterConfig,
    templateSpecOrEmpty(applied.spec.template.spec),
  );
  const unmet = defaulted.ok
    ? checkPreferenceRequirements(instancetype, preference, defaulted.value)
    : undefined;
  if (unmet) {
    return refused([
      cause(
        CauseType.NotFound,
        `failure checking preference requirements: ${unmet.message}`,
        unmet.fields() || undefined,
      ),
    ]);
  }
  const isKubeVirtServiceAccount = context.kubeVirtServiceAccounts.has(request.username ?? "");
  const verdict = validateVirtualMachine(
    applied,
    request.operation,
    context.clusterConfig,
    isKubeVirtServiceAccount,
    vm,
  );
  return verdict.causes.length === 0 ? admitStorage(request, vm, verdict) : verdict;
}

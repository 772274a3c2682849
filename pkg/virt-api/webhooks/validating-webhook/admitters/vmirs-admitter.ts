// The VirtualMachineInstanceReplicaSet admitter (upstream vmirs-admitter.go): the VMI template (not
// defaulted) and a selector that parses and matches the template's labels; then what kubevirt-ts does
// not build yet in the template.
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachineInstanceReplicaSetSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import {
  fieldErrorCauses,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateDiscontinuedFeatureGates } from "./discontinued-gates.js";
import { validateTemplateSelector } from "./template-selector.js";
import { withNotYetSupported } from "./not-yet-supported.js";
import { templateSpecOrEmpty, validateVirtualMachineInstanceSpec } from "./spec.js";

/** Upstream's ValidateVMIRSSpec. */
export function validateReplicaSetSpec(
  field: Path,
  spec: VirtualMachineInstanceReplicaSetSpec,
  config: ClusterConfig,
): StatusCause[] {
  if ((spec as Partial<VirtualMachineInstanceReplicaSetSpec>).template === undefined) {
    return [requiredCause("missing virtual machine template.", field.child("template"))];
  }
  const templateSpecAt = field.child("template", "spec");
  const templateSpec = templateSpecOrEmpty(spec.template.spec);
  return withNotYetSupported(
    [
      ...validateVirtualMachineInstanceSpec(templateSpecAt, templateSpec, config),
      ...validateTemplateSelector(field, spec.selector, spec.template.metadata?.labels),
    ],
    { at: field.child("template", "metadata"), value: spec.template.metadata },
    { at: templateSpecAt, value: templateSpec },
  );
}

export function admitReplicaSet(request: ValidationRequest, context: ValidationContext): Verdict {
  const parsed = parseDefinition("v1.VirtualMachineInstanceReplicaSet", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const spec = parsed.value.spec;
  const config = context.clusterConfig;
  const causes = validateReplicaSetSpec(specPath(), spec, config);
  if (request.operation === "CREATE") {
    causes.push(...validateDiscontinuedFeatureGates(config, templateSpecOrEmpty(spec.template.spec)));
  }
  return causes.length > 0 ? refused(causes) : accepted();
}

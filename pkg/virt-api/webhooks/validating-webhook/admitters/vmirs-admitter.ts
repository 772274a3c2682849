// The VirtualMachineInstanceReplicaSet admitter (upstream vmirs-admitter.go): the VMI template (not
// defaulted) and a selector that parses and matches the template's labels; then what kubevirt-ts does
// not build yet in the template.
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachineInstanceReplicaSetSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { Selector } from "../../../../controller/label-selector.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import {
  fieldErrorCauses,
  invalidCause,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "./causes.js";
import { validateDiscontinuedFeatureGates } from "./discontinued-gates.js";
import { withNotYetSupported } from "./not-yet-supported.js";
import { templateSpecOrEmpty, validateVirtualMachineInstanceSpec } from "./spec.js";
import { errorMessage } from "../../../../util/error-message.js";

function validateSelector(field: Path, spec: VirtualMachineInstanceReplicaSetSpec): StatusCause[] {
  const at = field.child("selector");
  let selector: Selector;
  try {
    // A missing selector selects nothing, so it cannot match the template either.
    selector = Selector.fromLabelSelector(spec.selector);
  } catch (error) {
    return [invalidCause(errorMessage(error), at)];
  }
  if (selector.matches(spec.template.metadata?.labels)) return [];
  return [invalidCause("selector does not match labels.", at)];
}

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
      ...validateSelector(field, spec),
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

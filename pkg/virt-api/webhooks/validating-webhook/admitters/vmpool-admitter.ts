// The VirtualMachinePool admitter (upstream vmpool-admitter.go): the VM template validated as a VM spec
// (not defaulted, as upstream), a selector that parses and matches the template's labels and stays as
// it was on updates, a maxUnavailable that is a positive count or a percentage from 1% to 100%, and at
// most one update and one scale-in strategy. What kubevirt-ts does not build yet in the template is
// refused through the VM spec's validation.
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachineSpec } from "../../../../api/generated/v1.js";
import type { VirtualMachinePool, VirtualMachinePoolSpec } from "../../../../api/generated/v1beta1.js";
import { semanticEqual } from "../../../../apimachinery/equality.js";
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
  invalidCause,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateDiscontinuedFeatureGates } from "./discontinued-gates.js";
import { validateTemplateSelector } from "./template-selector.js";
import { templateSpecOrEmpty } from "./spec.js";
import { validateVirtualMachineSpec } from "./vms-admitter.js";

function validateMaxUnavailable(field: Path, value: VirtualMachinePoolSpec["maxUnavailable"]): StatusCause[] {
  const at = field.child("maxUnavailable");
  if (value === undefined) return [];
  if (typeof value === "number") {
    return value <= 0 ? [invalidCause("maxUnavailable must be greater than 0", at)] : [];
  }
  if (!value.endsWith("%")) return [invalidCause("maxUnavailable percentage must end with %", at)];
  const percentage = value.slice(0, -1);
  // Go's strconv.Atoi.
  if (!/^[+-]?\d+$/.test(percentage)) {
    return [
      invalidCause(
        `maxUnavailable percentage value "${percentage}" is invalid: strconv.Atoi: parsing "${percentage}": invalid syntax`,
        at,
      ),
    ];
  }
  const number = Number(percentage);
  if (number <= 0 || number > 100) {
    return [invalidCause(`maxUnavailable percentage value ${number} must be between 1 and 100`, at)];
  }
  return [];
}

/** At most one of unmanaged, opportunistic and proactive (named in that order; upstream's is random). */
function validateOneStrategy(
  at: Path,
  strategy: { unmanaged?: unknown; opportunistic?: unknown; proactive?: unknown } | undefined,
): StatusCause[] {
  if (!strategy) return [];
  const configured = (["unmanaged", "opportunistic", "proactive"] as const).filter(
    (name) => strategy[name] !== undefined && strategy[name] !== null,
  );
  if (configured.length <= 1) return [];
  return [
    invalidCause(
      `only one strategy can be configured at a time: but found ${configured.join(", ")} strategies`,
      at,
    ),
  ];
}

function validateUpdate(field: Path, pool: VirtualMachinePool, oldObject: unknown): StatusCause[] {
  const old = parseDefinition("v1beta1.VirtualMachinePool", oldObject);
  const causes: StatusCause[] = [];
  if (!old.ok) causes.push({ reason: "UnexpectedServerResponse", message: "Could not fetch old vmpool" });
  const oldSelector = old.ok ? old.value.spec.selector : undefined;
  if (!semanticEqual(pool.spec.selector, oldSelector)) {
    causes.push(invalidCause("selector is immutable after creation.", field.child("selector")));
  }
  return causes;
}

/** Upstream's ValidateVMPoolSpec. */
export function validateVMPoolSpec(
  field: Path,
  pool: VirtualMachinePool,
  request: Pick<ValidationRequest, "operation" | "oldObject">,
  config: ClusterConfig,
  isKubeVirtServiceAccount: boolean,
): StatusCause[] {
  const spec = pool.spec;
  if ((spec as Partial<VirtualMachinePoolSpec>).virtualMachineTemplate === undefined) {
    // Upstream names the field spec.template.
    return [requiredCause("missing virtual machine template.", field.child("template"))];
  }
  // An absent VM spec is Go's zero value: one without a template.
  const vmSpec = spec.virtualMachineTemplate.spec ?? ({} as VirtualMachineSpec);
  return [
    ...validateVirtualMachineSpec(
      field.child("virtualMachineTemplate", "spec"),
      vmSpec,
      config,
      isKubeVirtServiceAccount,
    ),
    ...validateTemplateSelector(field, spec.selector, spec.virtualMachineTemplate.metadata?.labels),
    ...validateMaxUnavailable(field, spec.maxUnavailable),
    ...validateOneStrategy(field.child("updateStrategy"), spec.updateStrategy),
    ...validateOneStrategy(field.child("scaleInStrategy"), spec.scaleInStrategy),
    ...(request.operation === "UPDATE" ? validateUpdate(field, pool, request.oldObject) : []),
  ];
}

export function admitVirtualMachinePool(request: ValidationRequest, context: ValidationContext): Verdict {
  const parsed = parseDefinition("v1beta1.VirtualMachinePool", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const pool = parsed.value;
  const config = context.clusterConfig;
  const isKubeVirtServiceAccount = context.kubeVirtServiceAccounts.has(request.username ?? "");
  const causes = validateVMPoolSpec(specPath(), pool, request, config, isKubeVirtServiceAccount);
  if (request.operation === "CREATE" && pool.spec.virtualMachineTemplate) {
    const templateSpec = templateSpecOrEmpty(pool.spec.virtualMachineTemplate.spec?.template?.spec);
    causes.push(...validateDiscontinuedFeatureGates(config, templateSpec));
  }
  return causes.length > 0 ? refused(causes) : accepted();
}

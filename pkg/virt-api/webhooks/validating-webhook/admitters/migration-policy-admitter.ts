// The MigrationPolicy admitter (upstream admitters/migrationpolicy-admitter.go): a schema-valid policy whose
// completion timeout and bandwidth are not negative.
import { parseDefinition } from "../../../../api/parse.js";
import { fieldErrorCauses, invalidCause, specPath, type StatusCause } from "../../../../api/causes.js";
import type { MigrationPolicySpec } from "../../../../api/generated/v1alpha1.js";
import { Quantity } from "../../../../defaults/quantity.js";
import { accepted, refused, type ValidationRequest, type Verdict } from "./admission.js";

const ZERO = Quantity.parse("0");

/** Upstream's checks of a policy's spec, every cause collected. */
export function validateMigrationPolicySpec(spec: MigrationPolicySpec): StatusCause[] {
  const field = specPath();
  const causes: StatusCause[] = [];
  if (spec.completionTimeoutPerGiB != null && spec.completionTimeoutPerGiB < 0) {
    causes.push(invalidCause("must not be negative", field.child("completionTimeoutPerGiB")));
  }
  const bandwidth =
    spec.bandwidthPerMigration == null ? undefined : Quantity.tryParse(spec.bandwidthPerMigration);
  if (bandwidth && bandwidth.compare(ZERO) < 0) {
    causes.push(invalidCause("must not be negative", field.child("bandwidthPerMigration")));
  }
  return causes;
}

export function admitMigrationPolicy(request: ValidationRequest): Verdict {
  const parsed = parseDefinition("v1alpha1.MigrationPolicy", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const causes = validateMigrationPolicySpec(parsed.value.spec ?? {});
  return causes.length > 0 ? refused(causes) : accepted();
}

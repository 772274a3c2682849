// Upstream pkg/instancetype/webhooks: the VirtualMachine(Cluster)Instancetype admitter. Creations and
// updates are checked against the schema, then the memory overcommit: a percentage, and never with
// hugepages. Other operations pass.
import { Path } from "../../api/field.js";
import {
  accepted,
  fieldErrorCauses,
  invalidCause,
  refused,
  type AdmissionInput,
  type Verdict,
} from "./verdict.js";
import type { StatusCause } from "../../api/generated/k8s.js";
import type { VirtualMachineInstancetypeSpec } from "../../api/generated/v1beta1.js";
import type { DefinitionName } from "../../api/generated/index.js";
import { parseDefinition } from "../../api/parse.js";

export function validateInstancetypeSpec(field: Path, spec: VirtualMachineInstancetypeSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const overcommitAt = field.child("memory", "overcommitPercent");
  const overcommit = spec.memory.overcommitPercent ?? 0;
  if (overcommit < 0 || overcommit > 100) {
    causes.push(
      invalidCause(
        `${overcommitAt.toString()} '${overcommit}': must be in range between 0 and 100.`,
        overcommitAt,
      ),
    );
  }
  if (overcommit !== 0 && spec.memory.hugepages !== undefined) {
    const hugepagesAt = field.child("memory", "hugepages").toString();
    causes.push(
      invalidCause(
        `${overcommitAt.toString()} and ${hugepagesAt} should not be requested together.`,
        overcommitAt,
      ),
    );
  }
  return causes;
}

function admit(request: AdmissionInput, definition: DefinitionName): Verdict {
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return accepted();
  const parsed = parseDefinition(definition, request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const spec = (parsed.value as { spec: VirtualMachineInstancetypeSpec }).spec;
  return refused(validateInstancetypeSpec(Path.of("spec"), spec));
}

export const admitInstancetype = (request: AdmissionInput): Verdict =>
  admit(request, "v1beta1.VirtualMachineInstancetype");
export const admitClusterInstancetype = (request: AdmissionInput): Verdict =>
  admit(request, "v1beta1.VirtualMachineClusterInstancetype");

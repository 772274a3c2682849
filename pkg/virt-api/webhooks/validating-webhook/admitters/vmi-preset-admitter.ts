// The VirtualMachineInstancePreset admitter (upstream vmi-preset-admitter.go): a schema-valid preset
// with a domain whose disks and firmware pass the VMI rules.
import { parseDefinition } from "../../../../api/parse.js";
import { validateObject } from "../../../../util/openapi/validator.js";
import type { VirtualMachineInstancePresetSpec } from "../../../../api/generated/v1.js";
import { accepted, refused, type ValidationRequest, type Verdict } from "./admission.js";
import {
  fieldErrorCauses,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateDisks } from "./disks.js";
import { validateFirmware } from "./firmware.js";

/** Upstream's ValidateVMIPresetSpec. */
export function validateVMIPresetSpec(field: Path, spec: VirtualMachineInstancePresetSpec): StatusCause[] {
  const domain = spec.domain;
  if (domain === undefined) return [requiredCause("missing domain.", field.child("domain"))];
  const domainAt = field.child("domain");
  return [
    ...validateDisks(domainAt.child("devices", "disks"), domain.devices.disks ?? []),
    ...validateFirmware(domainAt.child("firmware"), domain.firmware),
  ];
}

export function admitVMIPreset(request: ValidationRequest): Verdict {
  // Upstream's ValidateSchema: the openapi findings, each a cause with only its message.
  const object = request.object;
  const isObject = typeof object === "object" && !Array.isArray(object);
  const problems = isObject
    ? validateObject("VirtualMachineInstancePreset", object as Record<string, unknown> | null)
    : [];
  if (problems.length > 0) return refused(problems.map((message) => ({ message })));
  const parsed = parseDefinition("v1.VirtualMachineInstancePreset", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const causes = validateVMIPresetSpec(
    specPath(),
    parsed.value.spec ?? ({} as VirtualMachineInstancePresetSpec),
  );
  return causes.length > 0 ? refused(causes) : accepted();
}

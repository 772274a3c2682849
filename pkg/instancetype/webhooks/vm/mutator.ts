// Upstream pkg/instancetype/webhooks/vm mutator: before the VM defaults, the matchers are checked (a
// pinned revisionName must change with the name; a name or inferFromVolume is needed), and the
// preference's architecture and machine type are written into a template that names none, so that the
// defaults do not take their place, as is its storage class into DataVolumeTemplates naming none.
import { FieldErrorType, Path } from "../../../api/field.js";
import type { StatusCause } from "../../../api/generated/k8s.js";
import type { InstancetypeMatcher, PreferenceMatcher, VirtualMachine } from "../../../api/generated/v1.js";
import type { VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";
import { isDeepStrictEqual } from "node:util";

type Matcher = InstancetypeMatcher | PreferenceMatcher;
type Member = "instancetype" | "preference";

const cause = (reason: FieldErrorType, message: string, field: Path): StatusCause => ({
  reason,
  message,
  field: field.toString(),
});

function matcherUpdateCauses(member: Member, matcher: Matcher | undefined, old: Matcher | undefined) {
  // Adding or removing a matcher is fine; so is any change to one without a pinned revision (the VM
  // controller's own updates).
  if (matcher === undefined || old === undefined || !old.revisionName) return [];
  if (isDeepStrictEqual(matcher, old)) return [];
  if (old.name !== matcher.name && old.revisionName === matcher.revisionName) {
    return [
      cause(
        FieldErrorType.Invalid,
        "the Matcher Name has been updated without updating the RevisionName",
        Path.of("spec", member, "revisionName"),
      ),
    ];
  }
  return [];
}

const MATCHER_WORD: Record<Member, string> = {
  instancetype: "InstancetypeMatcher",
  preference: "PreferenceMatcher",
};

function matcherCauses(member: Member, matcher: Matcher | undefined): StatusCause[] {
  if (matcher === undefined) return [];
  const at = Path.of("spec", member);
  const causes: StatusCause[] = [];
  if (!matcher.name && !matcher.inferFromVolume) {
    causes.push(
      cause(
        FieldErrorType.NotFound,
        `Either Name or InferFromVolume should be provided within the ${MATCHER_WORD[member]}`,
        at,
      ),
    );
  }
  if (matcher.inferFromVolume) {
    if (matcher.name) {
      causes.push(
        cause(
          FieldErrorType.NotSupported,
          "Name already set, should be cleared before setting inferFromVolume",
          at.child("name"),
        ),
      );
    }
    if (matcher.kind) {
      causes.push(
        cause(
          FieldErrorType.NotSupported,
          "Kind already set, should be cleared before setting inferFromVolume",
          at.child("kind"),
        ),
      );
    }
  }
  const policy = matcher.inferFromVolumeFailurePolicy;
  if (
    policy !== undefined &&
    policy !== "IgnoreInferFromVolumeFailure" &&
    policy !== "RejectInferFromVolumeFailure"
  ) {
    causes.push(
      cause(
        FieldErrorType.Invalid,
        `Invalid value '${policy}' for InferFromVolumeFailurePolicy`,
        at.child("inferFromVolumeFailurePolicy"),
      ),
    );
  }
  return causes;
}

/** Upstream's validateMatchers: update rules first (each refusing on its own), then the matchers. */
export function validateMatchers(
  vm: VirtualMachine,
  old: VirtualMachine | undefined,
  operation: string,
): StatusCause[] {
  if (operation === "UPDATE") {
    for (const member of ["instancetype", "preference"] as const) {
      const causes = matcherUpdateCauses(member, vm.spec[member], old?.spec[member]);
      if (causes.length > 0) return causes;
    }
  }
  const instancetype = matcherCauses("instancetype", vm.spec.instancetype);
  if (instancetype.length > 0) return instancetype;
  return matcherCauses("preference", vm.spec.preference);
}

/**
 * The preference's architecture and machine type, where the template names none, and its storage class
 * in the DataVolumeTemplates that name none (too late for them once the VMI is made from the template).
 */
export function mutateFromPreference(
  vm: VirtualMachine,
  preference: VirtualMachinePreferenceSpec | undefined,
): void {
  if (preference === undefined) return;
  mutateDataVolumeTemplates(vm, preference);
  const spec = vm.spec.template.spec;
  if (spec === undefined) return;
  if (preference.preferredArchitecture && !spec.architecture)
    spec.architecture = preference.preferredArchitecture;
  const machineType = preference.machine?.preferredMachineType;
  if (machineType && !spec.domain.machine?.type) (spec.domain.machine ??= {}).type = machineType;
}

/** Upstream's mutateDataVolumeTemplates: an empty storageClassName is one the template names (Go's nil check). */
function mutateDataVolumeTemplates(vm: VirtualMachine, preference: VirtualMachinePreferenceSpec): void {
  const storageClassName = preference.volumes?.preferredStorageClassName;
  if (!storageClassName) return;
  for (const template of vm.spec.dataVolumeTemplates ?? []) {
    const { pvc, storage } = template.spec;
    if (pvc && pvc.storageClassName === undefined) pvc.storageClassName = storageClassName;
    if (storage && storage.storageClassName === undefined) storage.storageClassName = storageClassName;
  }
}

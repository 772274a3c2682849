// What kubevirt-ts does not build yet, as admission causes. KubeVirt accepts these, but accepting them
// here would leave a VM stuck, so the webhooks refuse them with one cause per use, naming the field. The
// VMI part is the implemented subset the launcher's converter also enforces
// (pkg/virt-config/supported-subset.ts); the VM-level rows below only concern the VM controller. The
// wording is ours, not upstream's. Remove a row, or widen the subset, when its feature lands.
import type { ObjectMeta } from "../../../../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import {
  notYetSupportedInMetadata,
  notYetSupportedInSpec,
  notYetSupportedMessage,
  type NotYetSupported,
} from "../../../../virt-config/supported-subset.js";
import { notSupportedCause, type Path, type StatusCause } from "../../../../api/causes.js";

export { notYetSupportedMessage };

const asCauses = (uses: readonly NotYetSupported[]): StatusCause[] =>
  uses.map(({ field, message }) => notSupportedCause(message, field));

/** `at` is the spec's path (`spec`, `spec.template.spec`). */
export function validateInstanceSpecSupported(at: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return asCauses(notYetSupportedInSpec(at, spec));
}

/** `at` is the metadata's path (`metadata`, `spec.template.metadata`). */
export function validateMetadataSupported(at: Path, metadata: ObjectMeta | undefined): StatusCause[] {
  return asCauses(notYetSupportedInMetadata(at, metadata));
}

/**
 * The subset's causes for a VMI (or a template's VMI) after upstream's own: one cause per field, so a use
 * upstream already refuses there (a discontinued binding, say) is not named twice.
 */
export function withNotYetSupported(
  upstreamCauses: readonly StatusCause[],
  metadata: { at: Path; value: ObjectMeta | undefined },
  spec: { at: Path; value: VirtualMachineInstanceSpec },
): StatusCause[] {
  const named = new Set(upstreamCauses.map((cause) => cause.field));
  const ours = [
    ...validateInstanceSpecSupported(spec.at, spec.value),
    ...validateMetadataSupported(metadata.at, metadata.value),
  ];
  return [...upstreamCauses, ...ours.filter((cause) => !named.has(cause.field))];
}

// The VirtualMachineInstanceMigration update admitter (upstream admitters/migration-update-admitter.go): the
// spec never changes, and while the migration is not final its selector label (the VMI's name) can be
// neither removed nor changed.
import type {
  VirtualMachineInstanceMigration,
  VirtualMachineInstanceMigrationSpec,
} from "../../../../api/generated/v1.js";
import { cause, CauseType, type StatusCause } from "../../../../api/causes.js";
import { MigrationSelectorLabel } from "../../../../util/constants.js";
import { denied, type AdmissionDecision } from "../../admission-review.js";
import { refused, toValidationResponse, type ValidationRequest } from "./admission.js";
import { decodeMigration, isMigrationFinal, unmarshalMigration } from "./migration-create-admitter.js";
import { parseDefinition } from "../../../../api/parse.js";

const notSupported = (message: string): StatusCause => cause(CauseType.NotSupported, message);

/**
 * The spec as Go holds it after decoding, for apimachinery's semantic equality: an absent string is empty, an
 * empty map is no map, a pointer is present or not.
 */
function comparableSpec(spec: VirtualMachineInstanceMigrationSpec): string {
  const selector = Object.entries(spec.addedNodeSelector ?? {}).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return JSON.stringify({
    vmiName: spec.vmiName ?? "",
    addedNodeSelector: selector,
    sendTo:
      spec.sendTo == null
        ? null
        : { migrationID: spec.sendTo.migrationID ?? "", connectURL: spec.sendTo.connectURL ?? "" },
    receive: spec.receive == null ? null : { migrationID: spec.receive.migrationID ?? "" },
    priority: spec.priority ?? null,
  });
}

/** Upstream's ensureSelectorLabelSafe. */
export function selectorLabelCauses(
  newMigration: VirtualMachineInstanceMigration,
  oldMigration: VirtualMachineInstanceMigration,
): StatusCause[] {
  const oldLabels = oldMigration.metadata?.labels;
  if (isMigrationFinal(newMigration) || oldLabels == null) return [];
  if (!Object.hasOwn(oldLabels, MigrationSelectorLabel)) return [];
  const newLabels = newMigration.metadata?.labels;
  if (newLabels == null) return [notSupported("selector label can't be removed from an in-flight migration")];
  if (newLabels[MigrationSelectorLabel] !== oldLabels[MigrationSelectorLabel]) {
    return [notSupported("selector label can't be modified on an in-flight migration")];
  }
  return [];
}

export function admitMigrationUpdate(request: ValidationRequest): AdmissionDecision {
  // Both objects are decoded before the new one's schema is checked.
  const undecodable = unmarshalMigration(request.object) ?? unmarshalMigration(request.oldObject);
  if (undecodable !== undefined) return denied(undecodable);
  const decoded = decodeMigration(request.object);
  if (!decoded.ok) return decoded.response;
  // Go decodes a missing spec as the empty one.
  const oldObject = request.oldObject as Record<string, unknown> | null | undefined;
  const old = parseDefinition("v1.VirtualMachineInstanceMigration", {
    ...oldObject,
    spec: oldObject?.["spec"] ?? {},
  });
  const oldMigration: VirtualMachineInstanceMigration = old.ok ? old.value : { spec: {} };
  if (comparableSpec(decoded.migration.spec) !== comparableSpec(oldMigration.spec ?? {})) {
    return toValidationResponse(refused([notSupported("update of Migration object's spec is restricted")]));
  }
  const causes = selectorLabelCauses(decoded.migration, oldMigration);
  return causes.length > 0 ? toValidationResponse(refused(causes)) : { allowed: true };
}

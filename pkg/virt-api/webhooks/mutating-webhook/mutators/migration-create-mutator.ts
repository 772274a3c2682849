// The VirtualMachineInstanceMigration mutator (upstream mutators/migration-create-mutator.go): a new
// migration is labelled with its VMI's name (the selector every reader of migrations uses) and gets the
// migration finalizer; the patch replaces the metadata.
import type { ObjectMeta } from "../../../../api/generated/k8s.js";
import {
  MigrationSelectorLabel,
  VirtualMachineInstanceMigrationFinalizer,
} from "../../../../util/constants.js";
import {
  decodeMigration,
  unmarshalMigration,
  validateMigrationSchema,
} from "../../validating-webhook/admitters/migration-create-admitter.js";
import type { AdmissionDecision } from "../../admission-review.js";
import { allowedWithPatch, errorResponse, replaceMembers, type MutationRequest } from "./admission.js";

export function mutateMigrationCreate(request: MutationRequest): AdmissionDecision {
  // Upstream checks the schema before decoding the object.
  const schema = validateMigrationSchema(request.object);
  if (schema) return schema;
  const undecodable = unmarshalMigration(request.object);
  if (undecodable !== undefined) return errorResponse(undecodable);
  const decoded = decodeMigration(request.object);
  if (!decoded.ok) return decoded.response;
  const migration = decoded.migration;
  const metadata: ObjectMeta = structuredClone(migration.metadata ?? {});
  metadata.labels = { ...metadata.labels, [MigrationSelectorLabel]: migration.spec.vmiName ?? "" };
  metadata.finalizers = [...(metadata.finalizers ?? []), VirtualMachineInstanceMigrationFinalizer];
  return allowedWithPatch(replaceMembers({ metadata }));
}

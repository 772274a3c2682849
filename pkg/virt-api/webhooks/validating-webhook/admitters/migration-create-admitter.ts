// The VirtualMachineInstanceMigration create admitter (upstream admitters/migration-create-admitter.go): a
// schema-valid migration that names a VMI; a priority only with the MigrationPriorityQueue gate and only from
// virt-controller; a VMI that exists, is not final and is not LiveMigratable=False; no other migration of
// that VMI in flight; sendTo/receive only with the DecentralizedLiveMigration gate and matching IDs. What
// upstream answers with a plain error is a 400 with the error's text, what it answers with causes a 422.
// Upstream checks no more than this here: neither the VMI's phase nor spec.addedNodeSelector (the migration
// controller merges that one into the target pod's node selector).
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
  VirtualMachineInstanceMigrationSpec,
} from "../../../../api/generated/v1.js";
import { parseDefinition } from "../../../../api/parse.js";
import { goMetaDecodeError } from "../../../../api/go-meta-decode.js";
import { goJsonTypeName } from "../../../../util/go-json.js";
import { validateObject } from "../../../../util/openapi/validator.js";
import { errorMessage } from "../../../../util/error-message.js";
import { vmiHasHotplugVolumes } from "../../../../controller/hotplug-volumes.js";
import { MigrationSelectorLabel } from "../../../../util/constants.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { CONTROLLER_SERVICE_ACCOUNT } from "../../../../virt-operator/resource/generate/components/names.js";
import {
  cause,
  CauseType,
  fieldErrorCauses,
  requiredCause,
  specPath,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { denied, type AdmissionDecision } from "../../admission-review.js";
import {
  refused,
  toValidationResponse,
  type ValidationContext,
  type ValidationRequest,
} from "./admission.js";

/** The refusal of what upstream migrates and kubevirt-ts cannot yet. */
export const HotplugMigrationNotSupported =
  "migrating a VMI with hotplugged volumes is not supported by kubevirt-ts yet";

/** The reads the create admitter makes (upstream: the kubevirt client). */
export interface MigrationAdmissionClient {
  /** The VMI, undefined when there is none; any other failure throws. */
  getVMI(namespace: string, name: string): Promise<VirtualMachineInstance | undefined>;
  /** The namespace's migrations that match the label selector. */
  listMigrations(namespace: string, labelSelector: string): Promise<VirtualMachineInstanceMigration[]>;
}

export interface MigrationCreateContext extends ValidationContext {
  client: MigrationAdmissionClient;
}

/** Upstream's VirtualMachineInstanceReasonDisksNotMigratable. */
const DISKS_NOT_MIGRATABLE = "DisksNotLiveMigratable";
const MAX_LABEL_VALUE_LENGTH = 63;

const allowed = (): AdmissionDecision => ({ allowed: true });
const invalid = (causes: StatusCause[]): AdmissionDecision => toValidationResponse(refused(causes));

export type DecodedMigration =
  { ok: true; migration: VirtualMachineInstanceMigration } | { ok: false; response: AdmissionDecision };

/** json.Unmarshal of the review's object into a v1.VirtualMachineInstanceMigration: its failures are 400s. */
export function unmarshalMigration(object: unknown): string | undefined {
  if (object === null) return undefined;
  if (typeof object !== "object" || Array.isArray(object)) {
    return `json: cannot unmarshal ${goJsonTypeName(object)} into Go value of type v1.VirtualMachineInstanceMigration`;
  }
  return goMetaDecodeError("VirtualMachineInstanceMigration", object as Record<string, unknown>);
}

/** Upstream's ValidateSchema: every openapi finding as a cause with only its message. */
export function validateMigrationSchema(object: unknown): AdmissionDecision | undefined {
  if (object !== null && (typeof object !== "object" || Array.isArray(object))) {
    return denied(
      `json: cannot unmarshal ${goJsonTypeName(object)} into Go value of type map[string]interface {}`,
    );
  }
  const problems = validateObject(
    "VirtualMachineInstanceMigration",
    object as Record<string, unknown> | null,
  );
  return problems.length > 0 ? invalid(problems.map((message) => ({ message }))) : undefined;
}

/** Unmarshal, then the schema check, then the typed migration (upstream's getAdmissionReviewMigration). */
export function decodeMigration(object: unknown): DecodedMigration {
  const undecodable = unmarshalMigration(object);
  if (undecodable !== undefined) return { ok: false, response: denied(undecodable) };
  const schema = validateMigrationSchema(object);
  if (schema) return { ok: false, response: schema };
  const parsed = parseDefinition("v1.VirtualMachineInstanceMigration", object ?? {});
  if (!parsed.ok) return { ok: false, response: invalid(fieldErrorCauses(parsed.errors)) };
  return { ok: true, migration: parsed.value };
}

/** Upstream's ValidateVirtualMachineInstanceMigrationSpec. */
export function validateMigrationSpec(field: Path, spec: VirtualMachineInstanceMigrationSpec): StatusCause[] {
  if ((spec.vmiName ?? "") === "") return [requiredCause("vmiName is missing", field.child("vmiName"))];
  return [];
}

/** Upstream's IsDecentralized: exactly one of sendTo and receive. */
export function isDecentralized(migration: VirtualMachineInstanceMigration): boolean {
  return (migration.spec.sendTo != null) !== (migration.spec.receive != null);
}

/** Upstream's IsFinal of a migration. */
export function isMigrationFinal(migration: VirtualMachineInstanceMigration): boolean {
  const phase = migration.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

const isVMIFinal = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.phase === "Succeeded" || vmi.status?.phase === "Failed";

/** Upstream's isMigratable: the LiveMigratable=False condition's reason and message, if any. */
export function notMigratableError(
  vmi: VirtualMachineInstance,
  migration: VirtualMachineInstanceMigration,
): string | undefined {
  for (const condition of vmi.status?.conditions ?? []) {
    if (condition.type !== "LiveMigratable" || condition.status !== "False") continue;
    // Cross namespace/cluster migrations may carry disks that are not shared.
    if (condition.reason === DISKS_NOT_MIGRATABLE && isDecentralized(migration)) continue;
    return `Cannot migrate VMI, Reason: ${condition.reason ?? ""}, Message: ${condition.message ?? ""}`;
  }
  return undefined;
}

/** labels.Parse of `<label> in (<name>)`: a value longer than a label value may be is refused. */
function migrationSelector(vmiName: string): { ok: true; selector: string } | { ok: false; message: string } {
  if (vmiName.length > MAX_LABEL_VALUE_LENGTH) {
    return {
      ok: false,
      message: `values[0][${MigrationSelectorLabel}]: Invalid value: ${JSON.stringify(vmiName)}: must be no more than ${MAX_LABEL_VALUE_LENGTH} characters`,
    };
  }
  return { ok: true, selector: `${MigrationSelectorLabel} in (${vmiName})` };
}

/** Upstream's ensureNoMigrationConflict: the error for a migration of the VMI that is not final yet. */
export async function migrationConflict(
  client: MigrationAdmissionClient,
  vmiName: string,
  namespace: string,
): Promise<string | undefined> {
  const selector = migrationSelector(vmiName);
  if (!selector.ok) return selector.message;
  const migrations = await client.listMigrations(namespace, selector.selector);
  const inFlight = migrations.find((migration) => !isMigrationFinal(migration));
  if (inFlight === undefined) return undefined;
  const uid = inFlight.metadata?.uid ?? "";
  return `in-flight migration detected. Active migration job (${uid}) is currently already in progress for VMI ${inFlight.spec.vmiName ?? ""}.`;
}

/** Upstream's hasRequestOriginatedFromVirtController. */
function fromVirtController(username: string | undefined, serviceAccounts: ReadonlySet<string>): boolean {
  return (
    username !== undefined && serviceAccounts.has(username) && username.endsWith(CONTROLLER_SERVICE_ACCOUNT)
  );
}

function checkPriority(
  request: ValidationRequest,
  context: ValidationContext,
): AdmissionDecision | undefined {
  const forbidden = (message: string) =>
    invalid([cause(CauseType.Forbidden, message, "spec.migrationPriority")]);
  if (!context.clusterConfig.isFeatureGateEnabled(FeatureGate.MigrationPriorityQueue)) {
    return forbidden("MigrationPriorityQueue feature gate is not enabled in kubevirt resource");
  }
  if (!fromVirtController(request.username, context.kubeVirtServiceAccounts)) {
    return forbidden("Migration priority queue, only virt-controller is allowed to set priority field");
  }
  return undefined;
}

function checkDecentralized(
  migration: VirtualMachineInstanceMigration,
  context: ValidationContext,
): AdmissionDecision | undefined {
  const { sendTo, receive } = migration.spec;
  if (sendTo == null && receive == null) return undefined;
  if (!context.clusterConfig.isFeatureGateEnabled(FeatureGate.DecentralizedLiveMigration)) {
    return invalid([
      cause(
        CauseType.NotSupported,
        `${FeatureGate.DecentralizedLiveMigration} feature gate is not enabled in kubevirt resource`,
      ),
    ]);
  }
  if (sendTo != null && receive != null && (sendTo.migrationID ?? "") !== (receive.migrationID ?? "")) {
    return invalid([
      cause(
        CauseType.Invalid,
        `sendTo migrationID ${sendTo.migrationID ?? ""} does not match receive migrationID ${receive.migrationID ?? ""}`,
      ),
    ]);
  }
  return undefined;
}

export async function admitMigrationCreate(
  request: ValidationRequest,
  context: MigrationCreateContext,
): Promise<AdmissionDecision> {
  const decoded = decodeMigration(request.object);
  if (!decoded.ok) return decoded.response;
  const migration = decoded.migration;
  const causes = validateMigrationSpec(specPath(), migration.spec);
  if (causes.length > 0) return invalid(causes);
  if (migration.spec.priority != null) {
    const refusal = checkPriority(request, context);
    if (refusal) return refusal;
  }
  // The apiserver fills the namespace in before admission; the request's is the same.
  const namespace = migration.metadata?.namespace || (request.namespace ?? "");
  const vmiName = migration.spec.vmiName ?? "";
  try {
    const vmi = await context.client.getVMI(namespace, vmiName);
    if (vmi === undefined) return denied(`the VMI "${namespace}/${vmiName}" does not exist`);
    if (isVMIFinal(vmi)) return denied("Cannot migrate VMI in finalized state.");
    const notMigratable = notMigratableError(vmi, migration);
    if (notMigratable !== undefined) return denied(notMigratable);
    // Upstream gives the target pod an attachment pod of its own for them; kubevirt-ts does not yet.
    if (vmiHasHotplugVolumes(vmi)) return denied(HotplugMigrationNotSupported);
    const conflict = await migrationConflict(context.client, vmiName, namespace);
    if (conflict !== undefined) return denied(conflict);
  } catch (error) {
    return denied(errorMessage(error));
  }
  return checkDecentralized(migration, context) ?? allowed();
}

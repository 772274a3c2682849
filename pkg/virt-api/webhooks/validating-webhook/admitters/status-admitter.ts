// The `kubevirt-crd-status-validator` webhook (upstream status-admitter.go): a status written to
// virtualmachines/status, virtualmachineinstancereplicasets/status or virtualmachineinstancemigrations/status
// must match the API's schema for that kind's status, and a VM's hotplug volume requests must be ones
// that can be carried out (volume-requests.ts). Upstream's snapshot and restore checks are left out:
// kubevirt-ts serves no snapshots yet, so nothing else can be refused.
import type { VirtualMachine, VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { newPath } from "../../../../api/field.js";
import { parseDefinition } from "../../../../api/parse.js";
import { isBeingDeleted } from "../../../../controller/object.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import { fieldErrorCauses, invalidCause } from "../../../../api/causes.js";
import { validateVolumeRequests } from "./volume-requests.js";

const STATUS_DEFINITIONS = {
  VirtualMachine: "v1.VirtualMachineStatus",
  VirtualMachineInstanceReplicaSet: "v1.VirtualMachineInstanceReplicaSetStatus",
  VirtualMachineInstanceMigration: "v1.VirtualMachineInstanceMigrationStatus",
} as const;

/** Reads the VM's VMI; undefined when there is none. */
export type VMIReader = (namespace: string, name: string) => Promise<VirtualMachineInstance | undefined>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const kindOf = (object: unknown): string =>
  isRecord(object) && typeof object["kind"] === "string" ? object["kind"] : "";

/** The schema check alone. */
export function admitStatus(request: ValidationRequest): Verdict {
  const object = request.object;
  const kind = kindOf(object);
  if (kind === "") {
    return refused([invalidCause("could not determine object kind")]);
  }
  const definition = STATUS_DEFINITIONS[kind as keyof typeof STATUS_DEFINITIONS];
  if (!definition || !isRecord(object) || object["status"] === undefined) return accepted();
  const parsed = parseDefinition(definition, object["status"], newPath("status"));
  return parsed.ok ? accepted() : refused(fieldErrorCauses(parsed.errors));
}

/** The schema check, then a VM's volume requests against its template and (when ready) its VMI. */
export async function admitStatusWithVolumeRequests(
  request: ValidationRequest,
  context: ValidationContext,
  readVMI: VMIReader | undefined,
  now: number = Date.now(),
): Promise<Verdict> {
  const schema = admitStatus(request);
  if (schema.causes.length > 0 || kindOf(request.object) !== "VirtualMachine") return schema;
  const parsed = parseDefinition("v1.VirtualMachine", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const vm: VirtualMachine = parsed.value;
  if ((vm.status?.volumeRequests ?? []).length === 0) return schema;
  let vmi: VirtualMachineInstance | undefined;
  if (vm.status?.ready === true && readVMI) {
    // A read that fails for another reason than NotFound is the webhook's error, as upstream's.
    const found = await readVMI(vm.metadata?.namespace ?? "", vm.metadata?.name ?? "");
    if (found && !isBeingDeleted(found)) vmi = found;
  }
  const causes = validateVolumeRequests(vm, vmi, context.clusterConfig, now);
  return causes.length > 0 ? refused(causes) : schema;
}

// The `kubevirt-crd-status-validator` webhook (upstream status-admitter.go): a status written to
// virtualmachines/status, virtualmachineinstancereplicasets/status or virtualmachineinstancemigrations/status
// must match the API's schema for that kind's status. Upstream adds the VM's hotplug volume requests and
// snapshot checks; kubevirt-ts serves neither addvolume nor snapshots yet, so nothing else can be refused.
import { newPath } from "../../../../api/field.js";
import { parseDefinition } from "../../../../api/parse.js";
import { accepted, refused, type ValidationRequest, type Verdict } from "./admission.js";
import { fieldErrorCauses, invalidCause } from "./causes.js";

const STATUS_DEFINITIONS = {
  VirtualMachine: "v1.VirtualMachineStatus",
  VirtualMachineInstanceReplicaSet: "v1.VirtualMachineInstanceReplicaSetStatus",
  VirtualMachineInstanceMigration: "v1.VirtualMachineInstanceMigrationStatus",
} as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function admitStatus(request: ValidationRequest): Verdict {
  const object = request.object;
  const kind = isRecord(object) && typeof object["kind"] === "string" ? object["kind"] : "";
  if (kind === "") {
    return refused([invalidCause("could not determine object kind")]);
  }
  const definition = STATUS_DEFINITIONS[kind as keyof typeof STATUS_DEFINITIONS];
  if (!definition || !isRecord(object) || object["status"] === undefined) return accepted();
  const parsed = parseDefinition(definition, object["status"], newPath("status"));
  return parsed.ok ? accepted() : refused(fieldErrorCauses(parsed.errors));
}

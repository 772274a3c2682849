// virt-operator's admission checks on the KubeVirt CR (upstream's pkg/virt-operator/webhooks): only one
// KubeVirt CR may be created, each must match the schema, an update's customizeComponents patches must be
// JSON, and with uninstallStrategy
// BlockUninstallIfWorkloadsExist a deployed KubeVirt cannot be deleted while VMs, VMIs or replica sets exist.
import { goQuote, toStatusCauses } from "../../api/field.js";
import type { StatusCause } from "../../api/generated/k8s.js";
import { KubeVirtSchema, type CustomizeComponents } from "../../api/generated/v1.js";
import { parse } from "../../api/parse.js";
import type { KubeVirtCR, OperatorClient } from "../cluster.js";
import { WATCHED_RESOURCES } from "../resources.js";
import { KubeVirtPhase } from "../util/conditions.js";
import type { AdmissionRequest, AdmissionResponse } from "./admission-review.js";
import { allow, deny, denyWithCauses } from "./admission-review.js";
import { errorMessage } from "../../util/error-message.js";

export const UNINSTALL_STRATEGY_REMOVE_WORKLOADS = "RemoveWorkloads";
export const UNINSTALL_STRATEGY_BLOCK = "BlockUninstallIfWorkloadsExist";

export function uninstallErrorMessage(what: string): string {
  return (
    `Rejecting the uninstall request, since there are still ${what} present. Either delete all KubeVirt ` +
    "related workloads or change the uninstall strategy before uninstalling KubeVirt."
  );
}

export type Admitter = (request: AdmissionRequest) => Promise<AdmissionResponse>;

function schemaCheck(object: unknown): AdmissionResponse | undefined {
  const parsed = parse(KubeVirtSchema, object);
  return parsed.ok ? undefined : denyWithCauses(toStatusCauses(parsed.errors));
}

function failure(err: unknown): AdmissionResponse {
  return deny(errorMessage(err));
}

/** Refuses a second KubeVirt CR (best effort: two creations racing can both pass). */
export function kubeVirtCreateAdmitter(client: OperatorClient): Admitter {
  return async (request) => {
    const invalid = schemaCheck(request.object);
    if (invalid) return invalid;
    try {
      const existing = await client.list(WATCHED_RESOURCES.kubevirts, "");
      return existing.length === 0 ? allow() : deny("Kubevirt is already created");
    } catch (err) {
      return failure(err);
    }
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Only that each patch parses: whether it applies shows when the operator applies it. */
export function validateCustomizeComponents(customizations: CustomizeComponents | undefined): StatusCause[] {
  return (customizations?.patches ?? [])
    .filter((patch) => !isJson(patch.patch))
    .map((patch) => ({
      type: "FieldValueNotSupported",
      message: `patch ${goQuote(patch.patch)} is not valid JSON`,
    }));
}

/**
 * Upstream validates further configuration changes here (certificates, placement, TLS, feature gates);
 * this port checks the schema and the customizeComponents patches.
 */
export function kubeVirtUpdateAdmitter(): Admitter {
  return async (request) => {
    const parsed = parse(KubeVirtSchema, request.object);
    if (!parsed.ok) return denyWithCauses(toStatusCauses(parsed.errors));
    const causes = validateCustomizeComponents(parsed.value.spec.customizeComponents);
    return causes.length > 0 ? denyWithCauses(causes) : allow();
  };
}

const WORKLOADS = [
  { resource: WATCHED_RESOURCES.virtualMachineInstances, what: "Virtual Machine Instances" },
  { resource: WATCHED_RESOURCES.virtualMachines, what: "Virtual Machines" },
  {
    resource: WATCHED_RESOURCES.virtualMachineInstanceReplicaSets,
    what: "Virtual Machine Instance Replica Sets",
  },
] as const;

export function kubeVirtDeletionAdmitter(client: OperatorClient): Admitter {
  return async (request) => {
    try {
      const kv = await deletedKubeVirt(client, request);
      if (!kv) return allow();
      const strategy = kv.spec.uninstallStrategy ?? "";
      if (strategy === "" || strategy === UNINSTALL_STRATEGY_REMOVE_WORKLOADS) return allow();
      if (kv.status?.phase !== KubeVirtPhase.Deployed) return allow();
      for (const { resource, what } of WORKLOADS) {
        const found = await client.list(resource, "", { limit: 2 });
        if (found.length > 0) return deny(uninstallErrorMessage(what));
      }
      return allow();
    } catch (err) {
      return failure(err);
    }
  };
}

/** The CR being deleted, or for a deletecollection the first one of the namespace. */
async function deletedKubeVirt(
  client: OperatorClient,
  request: AdmissionRequest,
): Promise<KubeVirtCR | undefined> {
  const namespace = request.namespace ?? "";
  if (request.name) {
    const kv = await client.get<KubeVirtCR>(WATCHED_RESOURCES.kubevirts, namespace, request.name);
    if (!kv) throw new Error(`kubevirts.kubevirt.io "${request.name}" not found`);
    return kv;
  }
  return (await client.list<KubeVirtCR>(WATCHED_RESOURCES.kubevirts, namespace))[0];
}

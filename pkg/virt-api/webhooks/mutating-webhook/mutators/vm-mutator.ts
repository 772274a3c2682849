// The VirtualMachine mutating webhook's decisions (upstream mutators/vm-mutator.go), without the HTTP
// plumbing: a new VM gets a firmware UUID and serial, every VM gets the template's architecture and
// machine type, and the patch replaces spec and metadata.
import { canonicalizeQuantities } from "../../../../api/canonical-quantities.js";
import { VirtualMachineSchema } from "../../../../api/generated/v1.js";
import type { VirtualMachine } from "../../../../api/generated/v1.js";
import { setVirtualMachineDefaults } from "../../../../defaults/defaults.js";
import type { DefaultingOptions } from "../../../../defaults/defaults.js";
import { newRandomUUID } from "../../../../defaults/firmware-uuid.js";
import { supportsPCIeHotplug } from "../../../../defaults/pci.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import type { VirtualMachinePreferenceSpec } from "../../../../api/generated/v1beta1.js";
import { mutateFromPreference, validateMatchers } from "../../../../instancetype/webhooks/vm/mutator.js";
import {
  allowed,
  allowedWithPatch,
  errorResponse,
  invalidResponse,
  replaceMembers,
  validateSchema,
  type MutationRequest,
  type MutationResponse,
} from "./admission.js";
import { setDefaultPciTopologyVersion } from "./pci-topology.js";
import { errorMessage } from "../../../../util/error-message.js";

export interface VMMutatorContext extends DefaultingOptions {
  clusterConfig: ClusterConfig;
  /** The VM's preference, found before mutating (its architecture and machine type come first). */
  preference?: VirtualMachinePreferenceSpec;
}

/**
 * Only on CREATE: assigning them on UPDATE would race the VM controller, which persists a
 * name-derived UUID for VMs created before UUIDs were assigned here.
 */
function setFirmwareDefaultsIfEmpty(vm: VirtualMachine, newUUID: () => string): void {
  const domain = vm.spec.template.spec?.domain;
  if (!domain) return;
  const firmware = (domain.firmware ??= {});
  if (!firmware.uuid) firmware.uuid = newUUID();
  if (!firmware.serial) firmware.serial = newUUID();
}

/** The defaulted copy of a VM, as the webhook would store it. */
export function applyVMMutations(
  vm: VirtualMachine,
  operation: MutationRequest["operation"],
  context: VMMutatorContext,
): VirtualMachine {
  const copy = structuredClone(vm);
  mutateFromPreference(copy, context.preference);
  if (operation === "CREATE") setFirmwareDefaultsIfEmpty(copy, context.newUUID ?? newRandomUUID);
  const defaulted = setVirtualMachineDefaults(context.clusterConfig, copy);
  const template = defaulted.spec.template;
  if (operation === "CREATE" && template?.spec && supportsPCIeHotplug(template.spec)) {
    setDefaultPciTopologyVersion((template.metadata ??= {}));
  }
  return defaulted;
}

export function mutateVirtualMachine(request: MutationRequest, context: VMMutatorContext): MutationResponse {
  const checked = validateSchema(VirtualMachineSchema, request.object);
  if (!checked.ok) return checked.response;
  const vm = checked.value;
  // Being deleted: change nothing, so as not to race other deletions in flight.
  if (vm.metadata?.deletionTimestamp) return allowed();
  const old = VirtualMachineSchema.safeParse(request.oldObject);
  const matcherCauses = validateMatchers(vm, old.success ? old.data : undefined, request.operation);
  if (matcherCauses.length > 0) return invalidResponse(matcherCauses);
  // Go's decode and re-encode leaves every quantity as canonical text; the CRD schema expects strings.
  const mutated = canonicalizeQuantities(
    VirtualMachineSchema,
    applyVMMutations(vm, request.operation, context),
  );
  return allowedWithPatch(replaceMembers({ spec: mutated.spec, metadata: mutated.metadata ?? {} }));
}

/** What the instancetype mutator reads from the cluster. */
export interface InstancetypeLookups {
  /** The VM's preference; undefined when it has none or it cannot be found (then it is skipped). */
  preferenceOf: (vm: VirtualMachine) => Promise<VirtualMachinePreferenceSpec | undefined>;
  /** Upstream's inferFromVolume handler: rewrites the VM's matchers in place, or fails with why. */
  infer?: (vm: VirtualMachine) => Promise<void>;
}

/**
 * Upstream's instancetype mutator ahead of the VM's own: the matchers checked, inferred from their volume,
 * then the preference looked up for what it writes first.
 */
export async function mutateVirtualMachineWithPreference(
  request: MutationRequest,
  context: VMMutatorContext,
  lookups: InstancetypeLookups,
): Promise<MutationResponse> {
  const checked = validateSchema(VirtualMachineSchema, request.object);
  if (!checked.ok || checked.value.metadata?.deletionTimestamp) return mutateVirtualMachine(request, context);
  const vm = checked.value;
  const old = VirtualMachineSchema.safeParse(request.oldObject);
  const matcherCauses = validateMatchers(vm, old.success ? old.data : undefined, request.operation);
  if (matcherCauses.length > 0) return invalidResponse(matcherCauses);
  let inferred = request;
  if (lookups.infer && (vm.spec.instancetype?.inferFromVolume || vm.spec.preference?.inferFromVolume)) {
    try {
      await lookups.infer(vm);
    } catch (error) {
      return errorResponse(errorMessage(error), 400);
    }
    inferred = { ...request, object: vm };
  }
  if (vm.spec.preference === undefined) return mutateVirtualMachine(inferred, context);
  const preference = await lookups.preferenceOf(vm);
  return mutateVirtualMachine(inferred, preference ? { ...context, preference } : context);
}

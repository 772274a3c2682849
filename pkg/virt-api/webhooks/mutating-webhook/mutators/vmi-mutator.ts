// The VirtualMachineInstance mutating webhook's decisions (upstream mutators/vmi-mutator.go), without
// the HTTP plumbing: on CREATE the defaulted spec, metadata and initial status; on UPDATE, status
// changes are reverted unless they come from one of KubeVirt's own service accounts.
import { canonicalizeQuantities } from "../../../../api/canonical-quantities.js";
import { VirtualMachineInstanceSchema } from "../../../../api/generated/v1.js";
import type { VirtualMachineInstance, VirtualMachineInstancePreset } from "../../../../api/generated/v1.js";
import { setDefaultVirtualMachineInstance } from "../../../../defaults/defaults.js";
import type { DefaultingOptions, DefaultingResult } from "../../../../defaults/defaults.js";
import { supportsPCIeHotplug } from "../../../../defaults/pci.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import {
  allowed,
  allowedWithPatch,
  errorResponse,
  replaceMembers,
  validateSchema,
  type MutationRequest,
  type MutationResponse,
} from "./admission.js";
import { setDefaultPciTopologyVersion } from "./pci-topology.js";
import { applyPresets } from "./preset.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";

export const VirtualMachineInstanceFinalizer = "kubevirt.io/foregroundDeleteVirtualMachine";
/** Alpha: complete the vCPU count to an even number when the emulator thread gets its own CPU. */
export const EmulatorThreadCompleteToEvenParity = "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity";
export const QGSSocketPathAnnotation = "kubevirt.io/qgs-socket-path";
/** The qemu user virt-launcher runs as when the Root feature gate is off. */
export const NonRootUID = 107;
export const PresetDeprecationWarning =
  "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2.";

export interface VMIMutatorContext extends DefaultingOptions {
  clusterConfig: ClusterConfig;
  /** Usernames of KubeVirt's components (system:serviceaccount:<ns>:kubevirt-apiserver, ...). */
  kubeVirtServiceAccounts: ReadonlySet<string>;
  /** Clock for the phase transition timestamp. */
  now?: () => Date;
  /** The presets of the VMI's namespace, applied on creation; none when absent. */
  presets?: readonly VirtualMachineInstancePreset[];
  /** Where the settings a preset could not apply are reported. */
  warn?: (message: string) => void;
}

function setAnnotation(vmi: VirtualMachineInstance, key: string, value: string): void {
  const metadata = (vmi.metadata ??= {});
  (metadata.annotations ??= {})[key] = value;
}

/** Upstream's ApplyNewVMIMutations, on a copy: defaults plus the annotations and user a new VMI gets. */
export function applyNewVMIMutations(
  vmi: VirtualMachineInstance,
  config: ClusterConfig,
  options: DefaultingOptions = {},
): DefaultingResult<VirtualMachineInstance> {
  const defaulted = setDefaultVirtualMachineInstance(config, vmi, options);
  if (!defaulted.ok) return defaulted;
  const result = defaulted.value;
  if (supportsPCIeHotplug(result.spec)) setDefaultPciTopologyVersion((result.metadata ??= {}));
  if (result.spec.domain.cpu?.isolateEmulatorThread) {
    const requested = EmulatorThreadCompleteToEvenParity in config.getKubeVirtAnnotations();
    if (requested && config.alignCPUsEnabled()) setAnnotation(result, EmulatorThreadCompleteToEvenParity, "");
  }
  if (result.spec.domain.launchSecurity?.tdx) {
    const socketPath = config.getQGSSocketPath();
    if (socketPath !== "") setAnnotation(result, QGSSocketPathAnnotation, socketPath);
  }
  if (!config.rootEnabled()) (result.status ??= {}).runtimeUser = NonRootUID;
  return { ok: true, value: result };
}

/** Go's metav1.Time: RFC 3339 in UTC, whole seconds. */
function kubernetesTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function presetWarnings(vmi: VirtualMachineInstance): string[] | undefined {
  const annotations = Object.keys(vmi.metadata?.annotations ?? {});
  return annotations.some((key) => key.includes("virtualmachinepreset"))
    ? [PresetDeprecationWarning]
    : undefined;
}

function mutateCreate(vmi: VirtualMachineInstance, context: VMIMutatorContext): MutationResponse {
  // Presets fill in what the VMI leaves unset before any default does.
  const withPresets = structuredClone(vmi);
  const presets = applyPresets(withPresets, context.presets ?? [], context.warn);
  if (!presets.ok) return errorResponse(presets.message, 422);
  const mutated = applyNewVMIMutations(withPresets, context.clusterConfig, context);
  if (!mutated.ok) return errorResponse(mutated.message);
  const result = mutated.value;
  const metadata = (result.metadata ??= {});
  metadata.finalizers = [...(metadata.finalizers ?? []), VirtualMachineInstanceFinalizer];
  const status = (result.status ??= {});
  status.phase = "Pending";
  const transitionTime = kubernetesTime((context.now ?? (() => new Date()))());
  status.phaseTransitionTimestamps = [
    ...(status.phaseTransitionTimestamps ?? []),
    { phase: "Pending", phaseTransitionTimestamp: transitionTime },
  ];
  // Go's decode and re-encode leaves every quantity as canonical text; the CRD schema expects strings.
  const encoded = canonicalizeQuantities(VirtualMachineInstanceSchema, result);
  const patch = replaceMembers({ spec: encoded.spec, metadata: encoded.metadata, status: encoded.status });
  return allowedWithPatch(patch, presetWarnings(result));
}

function mutateUpdate(
  vmi: VirtualMachineInstance,
  oldVMI: VirtualMachineInstance,
  request: MutationRequest,
  context: VMIMutatorContext,
): MutationResponse {
  // Until VMIs have a status subresource, only KubeVirt itself may change the status.
  if (semanticallyEqual(vmi.status, oldVMI.status)) return allowed();
  if (context.kubeVirtServiceAccounts.has(request.username ?? "")) return allowed();
  return allowedWithPatch(replaceMembers({ status: oldVMI.status ?? {} }), presetWarnings(vmi));
}

export function mutateVirtualMachineInstance(
  request: MutationRequest,
  context: VMIMutatorContext,
): MutationResponse {
  const checked = validateSchema(VirtualMachineInstanceSchema, request.object);
  if (!checked.ok) return checked.response;
  if (request.operation === "CREATE") return mutateCreate(checked.value, context);
  if (request.operation === "UPDATE") {
    const old = validateSchema(VirtualMachineInstanceSchema, request.oldObject);
    if (!old.ok) return errorResponse("could not decode the old VirtualMachineInstance");
    return mutateUpdate(checked.value, old.value, request, context);
  }
  return allowed();
}

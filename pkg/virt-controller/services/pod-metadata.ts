// The launcher Pod's name, labels, annotations and owner (upstream's podLabels, generatePodAnnotations
// and the ObjectMeta of renderLaunchManifest).
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { virtualMachineInstanceID } from "../../apimachinery/labels.js";
import type { ObjectMeta, OwnerReference } from "../../controller/object.js";
import { newControllerRef } from "../../controller/object.js";
import {
  AppLabel,
  ComputeContainerName,
  CreatedByLabel,
  DefaultContainerAnnotation,
  DeprecatedVirtualMachineNameLabel,
  DomainAnnotation,
  EvictOnlyAnnotation,
  KubeVirtAPIVersion,
  MigrationTransportUnixAnnotation,
  VirtualMachineInstanceIDLabel,
} from "../../util/constants.js";

export const LauncherAppLabelValue = "virt-launcher";
const IstioInjectAnnotation = "sidecar.istio.io/inject";
const DNS1123LabelMaxLength = 63;
export const MemoryOverheadAnnotation = "kubevirt.io/memory-overhead-bytes";

/** The Pod's hostname: the VMI's `hostname`, else its name up to the first dot, at most 63 characters. */
export function launcherHostname(vmi: VirtualMachineInstance): string {
  if (vmi.spec.hostname) return vmi.spec.hostname;
  return (vmi.metadata?.name ?? "").split(".")[0]?.slice(0, DNS1123LabelMaxLength) ?? "";
}

export function launcherLabels(vmi: VirtualMachineInstance): Record<string, string> {
  const labels: Record<string, string> = { ...vmi.metadata?.labels };
  labels[AppLabel] = LauncherAppLabelValue;
  labels[CreatedByLabel] = vmi.metadata?.uid ?? "";
  labels[DeprecatedVirtualMachineNameLabel] = launcherHostname(vmi);
  labels[VirtualMachineInstanceIDLabel] = virtualMachineInstanceID(vmi.metadata?.name ?? "");
  const istioInject = vmi.metadata?.annotations?.[IstioInjectAnnotation];
  if (istioInject !== undefined) labels[IstioInjectAnnotation] = istioInject;
  return labels;
}

/** VMI annotations travel to the Pod, except kubectl's and the controllers' bookkeeping. */
function inheritedAnnotations(vmi: VirtualMachineInstance): Record<string, string> {
  const skipped = [
    "kubectl.kubernetes.io",
    "kubevirt.io/storage-observed-api-version",
    "kubevirt.io/latest-observed-api-version",
  ];
  return Object.fromEntries(
    Object.entries(vmi.metadata?.annotations ?? {}).filter(
      ([key]) => !skipped.some((prefix) => key.startsWith(prefix)),
    ),
  );
}

/** `memoryOverheadBytes` is reported only with the VmiMemoryOverheadReport gate (undefined without it). */
export function launcherAnnotations(
  vmi: VirtualMachineInstance,
  memoryOverheadBytes: bigint | undefined,
): Record<string, string> {
  return {
    [DomainAnnotation]: vmi.metadata?.name ?? "",
    ...inheritedAnnotations(vmi),
    [DefaultContainerAnnotation]: ComputeContainerName,
    // New launchers migrate over unix sockets.
    [MigrationTransportUnixAnnotation]: "true",
    // The descheduler may evict only through the eviction API, which KubeVirt turns into a migration.
    [EvictOnlyAnnotation]: "",
    ...(memoryOverheadBytes !== undefined
      ? { [MemoryOverheadAnnotation]: memoryOverheadBytes.toString() }
      : {}),
  };
}

export function controllerReference(vmi: VirtualMachineInstance): OwnerReference {
  return newControllerRef(vmi, KubeVirtAPIVersion, "VirtualMachineInstance");
}

export function launcherMetadata(
  vmi: VirtualMachineInstance,
  memoryOverheadBytes: bigint | undefined,
): ObjectMeta {
  return {
    generateName: `virt-launcher-${vmi.metadata?.name ?? ""}-`,
    namespace: vmi.metadata?.namespace ?? "",
    labels: launcherLabels(vmi),
    annotations: launcherAnnotations(vmi, memoryOverheadBytes),
    ownerReferences: [controllerReference(vmi)],
  };
}

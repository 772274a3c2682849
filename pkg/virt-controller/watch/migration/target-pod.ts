// The migration target's launcher Pod (upstream's createTargetPod around RenderMigrationManifest): the
// VMI's launcher Pod, kept off every node already running a pod of this VMI, carrying the migration's
// uid label and name annotation, the migration's added node selector, a host-model CPU's model and
// features and the source node's CPU vendor, and the source's SELinux level (shared volumes).
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { KubeObject } from "../../../controller/object.js";
import {
  ComputeContainerName,
  CPUFeatureLabel,
  CPUModelVendorLabel,
  CreatedByLabel,
  HostModelCPULabel,
  HostModelRequiredFeaturesLabel,
  SupportedHostModelMigrationCPU,
} from "../../../util/constants.js";
import {
  FuncTestMigrationTargetImageOverrideAnnotation,
  MigrationJobLabel,
  MigrationJobNameAnnotation,
  type StoredVMIM,
} from "./vmim.js";

const HostnameLabel = "kubernetes.io/hostname";
const HostModel = "host-model";

export interface TargetPodInput {
  /** What the template service rendered for the migration. */
  template: Pod;
  vmi: VirtualMachineInstance;
  migration: StoredVMIM;
  sourcePod: Pod;
  /** The VMI's current node from the node cache; needed for host-model CPUs and the CPU vendor. */
  sourceNode: KubeObject | undefined;
  /** migrations.matchSELinuxLevelOnMigration: unset means true. */
  matchSELinuxLevel: boolean;
}

export class TargetPodError extends Error {
  override readonly name = "TargetPodError";
}

/** Required anti-affinity to every node where a pod created by this VMI runs. */
function addAntiAffinity(pod: Pod, vmi: VirtualMachineInstance): void {
  const term = {
    labelSelector: { matchLabels: { [CreatedByLabel]: vmi.metadata?.uid ?? "" } },
    topologyKey: HostnameLabel,
  };
  const affinity = (pod.spec.affinity ??= {});
  const antiAffinity = (affinity.podAntiAffinity ??= {});
  antiAffinity.requiredDuringSchedulingIgnoredDuringExecution = [
    ...(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    term,
  ];
}

/** A node's host model as target selectors: the supported-model label and its required features. */
export function hostCpuModelSelectors(labels: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  let model: string | undefined;
  let modelValue = "";
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith(HostModelCPULabel)) {
      model = key.slice(HostModelCPULabel.length);
      modelValue = value;
    }
    if (key.startsWith(HostModelRequiredFeaturesLabel))
      result[CPUFeatureLabel + key.slice(HostModelRequiredFeaturesLabel.length)] = value;
  }
  if (!model) {
    throw new TargetPodError(
      `unable to locate host cpu model, does not contain label "${HostModelCPULabel}" with information`,
    );
  }
  result[SupportedHostModelMigrationCPU + model] = modelValue;
  return result;
}

/**
 * A VMI that migrated before keeps the CPU selectors its pod already has (so it can go back); else the
 * source node's host model is required of the target.
 */
function hostModelSelectors(node: KubeObject, sourcePodSelector: Record<string, string> = {}) {
  const kept = Object.fromEntries(
    Object.entries(sourcePodSelector).filter(
      ([key]) => key.includes(CPUFeatureLabel) || key.includes(SupportedHostModelMigrationCPU),
    ),
  );
  if (Object.keys(kept).length > 0) return kept;
  return hostCpuModelSelectors(node.metadata?.labels ?? {});
}

const vendorLabelKey = (labels: Record<string, string> = {}): string | undefined =>
  Object.keys(labels).find((key) => key.startsWith(CPUModelVendorLabel));

function requireNode(node: KubeObject | undefined, vmi: VirtualMachineInstance): KubeObject {
  if (node) return node;
  throw new TargetPodError(
    `node "${vmi.status?.nodeName ?? ""}" associated with vmi "${vmi.metadata?.name ?? ""}" does not exist`,
  );
}

/** The level of an SELinux context `user:role:type:level` (the level itself may hold colons). */
function selinuxLevel(context: string): string | undefined {
  const parts = context.split(":");
  if (parts.length < 3) throw new TargetPodError(`invalid SELinux context "${context}"`);
  return parts.length > 3 ? parts.slice(3).join(":") : undefined;
}

function setSELinuxLevel(pod: Pod, vmiContext: string | undefined): void {
  // "none": the node has no SELinux.
  if (vmiContext === "none") return;
  if (!vmiContext) throw new TargetPodError("SELinux context not set on VMI status");
  const level = selinuxLevel(vmiContext);
  if (!level) return;
  pod.spec.securityContext = { ...pod.spec.securityContext, seLinuxOptions: { level } };
}

export function migrationTargetPod(input: TargetPodInput): Pod {
  const { vmi, migration, sourcePod } = input;
  const pod = structuredClone(input.template);
  addAntiAffinity(pod, vmi);
  pod.spec.nodeSelector = { ...migration.spec.addedNodeSelector, ...pod.spec.nodeSelector };
  pod.metadata.labels = { ...pod.metadata.labels, [MigrationJobLabel]: migration.metadata?.uid ?? "" };
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [MigrationJobNameAnnotation]: migration.metadata?.name ?? "",
  };
  if (vmi.spec.domain.cpu?.model === HostModel) {
    const node = requireNode(input.sourceNode, vmi);
    Object.assign(pod.spec.nodeSelector, hostModelSelectors(node, sourcePod.spec.nodeSelector));
  }
  // Never between CPU vendors (AMD and Intel guests do not migrate across).
  if (!vendorLabelKey(pod.spec.nodeSelector)) {
    const vendor = vendorLabelKey(requireNode(input.sourceNode, vmi).metadata?.labels);
    if (vendor) pod.spec.nodeSelector[vendor] = "true";
  }
  if (input.matchSELinuxLevel) setSELinuxLevel(pod, vmi.status?.selinuxContext);
  // Upstream's functional tests break targets on purpose through this annotation.
  const override = migration.metadata?.annotations?.[FuncTestMigrationTargetImageOverrideAnnotation];
  if (override) {
    const compute = pod.spec.containers.find((container) => container.name === ComputeContainerName);
    if (compute) compute.image = override;
  }
  return pod;
}

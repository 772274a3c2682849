// Where a launcher Pod may run (upstream's nodeselectorrenderer.go and the affinity rules of
// template.go): only on nodes virt-handler marked schedulable, of the VMI's architecture, offering its
// machine type and named CPU model and features; plus the VMI's own node selector and affinity.
import type { V1Affinity, V1NodeSelectorRequirement } from "@kubernetes/client-node";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  ArchLabel,
  CPUFeatureLabel,
  CPUModelLabel,
  NodeHostModelIsObsoleteLabel,
  NodeSchedulableLabel,
  SupportedMachineTypeLabel,
} from "../../util/constants.js";

const HostModel = "host-model";
const HostPassthrough = "host-passthrough";

function machineType(vmi: VirtualMachineInstance): string {
  return vmi.status?.machine?.type || vmi.spec.domain.machine?.type || "";
}

/** Labels virt-handler's node labeller puts on nodes that can run what the VMI asks for. */
function capabilityLabels(vmi: VirtualMachineInstance): string[] {
  const cpu = vmi.spec.domain.cpu;
  const labels: string[] = [];
  const model = cpu?.model ?? "";
  if (model !== "" && model !== HostModel && model !== HostPassthrough)
    labels.push(`${CPUModelLabel}${model}`);
  const machine = machineType(vmi);
  if (machine !== "") labels.push(`${SupportedMachineTypeLabel}${machine}`);
  for (const feature of cpu?.features ?? []) {
    if (!feature.policy || feature.policy === "require") labels.push(`${CPUFeatureLabel}${feature.name}`);
  }
  if (cpu?.realtime !== undefined) labels.push("kubevirt.io/realtime");
  return labels;
}

export function renderNodeSelector(
  vmi: VirtualMachineInstance,
  config: ClusterConfig,
): Record<string, string> {
  const selector: Record<string, string> = { [NodeSchedulableLabel]: "true" };
  const architecture = vmi.spec.architecture ?? "";
  if (architecture !== "") selector[ArchLabel] = architecture.toLowerCase();
  Object.assign(selector, config.getConfig().developerConfiguration?.nodeSelectors, vmi.spec.nodeSelector);
  for (const label of capabilityLabels(vmi)) selector[label] = "true";
  return selector;
}

/** A required "label does not exist" term, added to every existing term since terms are ORed. */
function rejectLabel(affinity: V1Affinity | undefined, label: string): V1Affinity {
  const requirement: V1NodeSelectorRequirement = { key: label, operator: "DoesNotExist" };
  const result: V1Affinity = structuredClone(affinity ?? {});
  const nodeAffinity = (result.nodeAffinity ??= {});
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) {
    for (const term of required.nodeSelectorTerms)
      term.matchExpressions = [...(term.matchExpressions ?? []), requirement];
  } else {
    nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
      nodeSelectorTerms: [{ matchExpressions: [requirement] }],
    };
  }
  return result;
}

/**
 * The VMI's affinity, plus: a host-model CPU never lands on a node whose host model is obsolete, and a
 * forbidden CPU feature keeps the Pod off nodes that have it.
 */
export function renderAffinity(vmi: VirtualMachineInstance): V1Affinity | undefined {
  // The VMI's affinity uses the same Kubernetes definitions as the Pod's.
  let affinity = vmi.spec.affinity as V1Affinity | undefined;
  const cpu = vmi.spec.domain.cpu;
  if (!cpu?.model || cpu.model === HostModel) affinity = rejectLabel(affinity, NodeHostModelIsObsoleteLabel);
  for (const feature of cpu?.features ?? []) {
    if (feature.policy === "forbid") affinity = rejectLabel(affinity, `${CPUFeatureLabel}${feature.name}`);
  }
  return affinity && structuredClone(affinity);
}

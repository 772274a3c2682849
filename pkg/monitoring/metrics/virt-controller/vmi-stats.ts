// The VMIs in the controller's cache, read on every scrape (upstream vmistats_collector.go): one
// kubevirt_vmi_info series per VMI with its phase, guest and placement, whether it blocks eviction, and the
// per-node phase counts.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { KubeObject } from "../../../controller/object.js";
import { CreatedByLabel, OutdatedLauncherImageLabel } from "../../../util/constants.js";
import type { CollectorResult, MetricDescription } from "../common/collector.js";

export const vmiInfo: MetricDescription = {
  name: "kubevirt_vmi_info",
  help: "Information about VirtualMachineInstances.",
  type: "gauge",
};
export const vmiNonEvictable: MetricDescription = {
  name: "kubevirt_vmi_non_evictable",
  help: "Indication for a VirtualMachine that its eviction strategy is set to Live Migration but is not migratable.",
  type: "gauge",
};
// Upstream computes this one in Prometheus (a recording rule summing kubevirt_vmi_info by these labels). There
// is no rule engine here, so the controller serves the same sums under the name the rule records them.
export const vmiPhaseCount: MetricDescription = {
  name: "kubevirt_vmi_phase_count",
  help: "[Deprecated] Replaced by node:kubevirt_vmi_phase:sum.",
  type: "gauge",
};

export const VMI_STATS_METRICS = [vmiInfo, vmiNonEvictable, vmiPhaseCount];

const PHASE_COUNT_LABELS = [
  "node",
  "phase",
  "os",
  "workload",
  "flavor",
  "instance_type",
  "preference",
  "guest_os_kernel_release",
  "guest_os_machine",
  "guest_os_arch",
  "guest_os_name",
  "guest_os_version_id",
] as const;

const ANNOTATION_PREFIX = "vm.kubevirt.io/";
const VENDOR_LABEL = "instancetype.kubevirt.io/vendor";
// Only instance types and preferences of these vendors are named; any other shows as <other>.
const KNOWN_VENDORS = new Set(["kubevirt.io", "redhat.com"]);
const OTHER = "<other>";

const INSTANCETYPE_ANNOTATION = "kubevirt.io/instancetype-name";
const CLUSTER_INSTANCETYPE_ANNOTATION = "kubevirt.io/cluster-instancetype-name";
const PREFERENCE_ANNOTATION = "kubevirt.io/preference-name";
const CLUSTER_PREFERENCE_ANNOTATION = "kubevirt.io/cluster-preference-name";

/** What the collector reads besides the VMIs themselves. */
export interface VMIStatsLookups {
  /** Pods of a namespace (the launchers among them). */
  podsIn(namespace: string): readonly Pod[];
  instancetype(key: string): KubeObject | undefined;
  clusterInstancetype(name: string): KubeObject | undefined;
  preference(key: string): KubeObject | undefined;
  clusterPreference(name: string): KubeObject | undefined;
  /** The VMI's eviction strategy, its own or the cluster's. */
  evictionStrategy(vmi: VirtualMachineInstance): string | undefined;
}

function vendorName(object: KubeObject | undefined): string {
  if (!object) return OTHER;
  return KNOWN_VENDORS.has(object.metadata?.labels?.[VENDOR_LABEL] ?? "")
    ? (object.metadata?.name ?? OTHER)
    : OTHER;
}

function namedBy(
  vmi: VirtualMachineInstance,
  namespaced: [string, (key: string) => KubeObject | undefined],
  clusterWide: [string, (name: string) => KubeObject | undefined],
): string {
  const annotations = vmi.metadata?.annotations ?? {};
  const namespacedName = annotations[namespaced[0]];
  if (namespacedName !== undefined)
    return vendorName(namespaced[1](`${vmi.metadata?.namespace ?? ""}/${namespacedName}`));
  const clusterName = annotations[clusterWide[0]];
  if (clusterName !== undefined) return vendorName(clusterWide[1](clusterName));
  return "";
}

/** Upstream's isVMEvictable: a VMI to live-migrate on eviction is evictable only once known migratable. */
export function isEvictable(vmi: VirtualMachineInstance, strategy: string | undefined): boolean {
  const migratable = vmi.status?.conditions?.find((condition) => condition.type === "LiveMigratable");
  const migratesOnEviction =
    strategy === "LiveMigrate" || (strategy === "LiveMigrateIfPossible" && migratable?.status === "True");
  if (!migratesOnEviction) return true;
  return migratable !== undefined && migratable.status !== "False";
}

/** The running launcher pod of the VMI on its node, "" when there is none. */
function launcherPod(vmi: VirtualMachineInstance, lookups: VMIStatsLookups): string {
  const uid = vmi.metadata?.uid ?? "";
  const pod = lookups
    .podsIn(vmi.metadata?.namespace ?? "")
    .find(
      (pod) =>
        pod?.metadata?.labels?.[CreatedByLabel] === uid &&
        pod.status?.phase === "Running" &&
        pod.spec?.nodeName === vmi.status?.nodeName,
    );
  return pod?.metadata?.name ?? "";
}

export function vmiInfoLabels(vmi: VirtualMachineInstance, lookups: VMIStatsLookups): Record<string, string> {
  const annotations = vmi.metadata?.annotations ?? {};
  const guest = vmi.status?.guestOSInfo ?? {};
  return {
    node: vmi.status?.nodeName ?? "",
    namespace: vmi.metadata?.namespace ?? "",
    name: vmi.metadata?.name ?? "",
    phase: (vmi.status?.phase ?? "").toLowerCase(),
    os: annotations[`${ANNOTATION_PREFIX}os`] ?? "",
    workload: annotations[`${ANNOTATION_PREFIX}workload`] ?? "",
    flavor: annotations[`${ANNOTATION_PREFIX}flavor`] ?? "",
    instance_type: namedBy(
      vmi,
      [INSTANCETYPE_ANNOTATION, lookups.instancetype],
      [CLUSTER_INSTANCETYPE_ANNOTATION, lookups.clusterInstancetype],
    ),
    preference: namedBy(
      vmi,
      [PREFERENCE_ANNOTATION, lookups.preference],
      [CLUSTER_PREFERENCE_ANNOTATION, lookups.clusterPreference],
    ),
    guest_os_kernel_release: guest.kernelRelease ?? "",
    // As upstream: the machine label is the VMI's machine type, the arch label the guest's machine.
    guest_os_machine: vmi.status?.machine?.type ?? "",
    guest_os_arch: guest.machine ?? "",
    guest_os_name: guest.name ?? "",
    guest_os_version_id: guest.versionId ?? "",
    evictable: String(isEvictable(vmi, lookups.evictionStrategy(vmi))),
    outdated: String(vmi.metadata?.labels?.[OutdatedLauncherImageLabel] !== undefined),
    vmi_pod: launcherPod(vmi, lookups),
  };
}

/** Every series of the collector for these VMIs; a VMI that cannot be read is left out, never fails the rest. */
export function vmiStats(
  vmis: readonly VirtualMachineInstance[],
  lookups: VMIStatsLookups,
): CollectorResult[] {
  const results: CollectorResult[] = [];
  const phaseCounts = new Map<string, { labels: Record<string, string>; count: number }>();
  for (const vmi of vmis) {
    let labels: Record<string, string>;
    try {
      labels = vmiInfoLabels(vmi, lookups);
    } catch {
      continue;
    }
    results.push({ metric: vmiInfo, labels, value: 1 });
    results.push({
      metric: vmiNonEvictable,
      labels: {
        node: labels["node"] ?? "",
        namespace: labels["namespace"] ?? "",
        name: labels["name"] ?? "",
      },
      value: labels["evictable"] === "true" ? 0 : 1,
    });
    const countLabels = Object.fromEntries(PHASE_COUNT_LABELS.map((name) => [name, labels[name] ?? ""]));
    const key = JSON.stringify(countLabels);
    const entry = phaseCounts.get(key) ?? { labels: countLabels, count: 0 };
    entry.count++;
    phaseCounts.set(key, entry);
  }
  for (const { labels, count } of phaseCounts.values())
    results.push({ metric: vmiPhaseCount, labels, value: count });
  return results;
}

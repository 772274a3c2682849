// One VMI's statistics as the collector reports them (upstream domainstats.go): every series carries the
// VMI's node, namespace and name, and each of the VMI's labels as kubernetes_vmi_label_<key>.
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import type { FileSystemList } from "../../../../api/guest-agent-info.js";
import type { DomainStats } from "../../../../virt-launcher/virtwrap/stats/types.js";
import type { CollectorResult, MetricDescription } from "../../common/collector.js";

const LABEL_PREFIX = "kubernetes_vmi_label_";

export interface VMIStats {
  domainStats: DomainStats;
  filesystems: FileSystemList;
}

/** A Kubernetes label key as a metric label name: `.`, `/` and `-` (and anything else invalid) become `_`. */
export function metricLabelName(key: string): string {
  return LABEL_PREFIX + key.replace(/[^a-zA-Z0-9_]/g, "_");
}

export class VMIReport {
  private readonly baseLabels: Record<string, string>;

  constructor(
    readonly vmi: VirtualMachineInstance,
    readonly stats: VMIStats,
  ) {
    const runtime = Object.entries(vmi.metadata?.labels ?? {}).map(([key, value]) => [
      metricLabelName(key),
      value,
    ]);
    this.baseLabels = {
      node: vmi.status?.nodeName ?? "",
      namespace: vmi.metadata?.namespace ?? "",
      name: vmi.metadata?.name ?? "",
      ...Object.fromEntries(runtime),
    };
  }

  result(metric: MetricDescription, value: number, labels: Record<string, string> = {}): CollectorResult {
    return { metric, value, labels: { ...this.baseLabels, ...labels } };
  }
}

export const nanosecondsToSeconds = (ns: number): number => ns / 1e9;
export const kibibytesToBytes = (kib: number): number => kib * 1024;

/** A resource's metrics: what they are, and their series for one VMI. */
export interface ResourceMetrics {
  metrics: readonly MetricDescription[];
  collect(report: VMIReport): CollectorResult[];
}

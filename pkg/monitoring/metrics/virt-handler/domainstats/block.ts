// Each disk's I/O (upstream block_metrics.go), named by the VMI's disk name when the launcher knows it.
import type { DomainStatsBlock } from "../../../../virt-launcher/virtwrap/stats/types.js";
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import { nanosecondsToSeconds, type ResourceMetrics, type VMIReport } from "./report.js";

const counter = (name: string, help: string): MetricDescription => ({ name, help, type: "counter" });

export const storageIopsRead = counter(
  "kubevirt_vmi_storage_iops_read_total",
  "Total number of I/O read operations.",
);
export const storageIopsWrite = counter(
  "kubevirt_vmi_storage_iops_write_total",
  "Total number of I/O write operations.",
);
export const storageReadTrafficBytes = counter(
  "kubevirt_vmi_storage_read_traffic_bytes_total",
  "Total number of bytes read from storage.",
);
export const storageWriteTrafficBytes = counter(
  "kubevirt_vmi_storage_write_traffic_bytes_total",
  "Total number of written bytes.",
);
export const storageReadTimes = counter(
  "kubevirt_vmi_storage_read_times_seconds_total",
  "Total time spent on read operations.",
);
export const storageWriteTimes = counter(
  "kubevirt_vmi_storage_write_times_seconds_total",
  "Total time spent on write operations.",
);
export const storageFlushRequests = counter(
  "kubevirt_vmi_storage_flush_requests_total",
  "Total storage flush requests.",
);
export const storageFlushTimes = counter(
  "kubevirt_vmi_storage_flush_times_seconds_total",
  "Total time spent on cache flushing.",
);

type Figure = "RdReqs" | "WrReqs" | "RdBytes" | "WrBytes" | "RdTimes" | "WrTimes" | "FlReqs" | "FlTimes";

// Each metric with its figure, and whether libvirt's nanoseconds become seconds.
const FIGURES: [MetricDescription, Figure, boolean][] = [
  [storageIopsRead, "RdReqs", false],
  [storageIopsWrite, "WrReqs", false],
  [storageReadTrafficBytes, "RdBytes", false],
  [storageWriteTrafficBytes, "WrBytes", false],
  [storageReadTimes, "RdTimes", true],
  [storageWriteTimes, "WrTimes", true],
  [storageFlushRequests, "FlReqs", false],
  [storageFlushTimes, "FlTimes", true],
];

export const blockMetrics: ResourceMetrics = {
  metrics: FIGURES.map(([metric]) => metric),
  collect(report: VMIReport): CollectorResult[] {
    const results: CollectorResult[] = [];
    for (const block of report.stats.domainStats.Block ?? []) {
      if (!block.NameSet) continue;
      const labels = { drive: block.Alias !== "" ? block.Alias : block.Name };
      for (const [metric, figure, nanoseconds] of FIGURES) {
        if (block[`${figure}Set` as keyof DomainStatsBlock] !== true) continue;
        const value = nanoseconds ? nanosecondsToSeconds(block[figure]) : block[figure];
        results.push(report.result(metric, value, labels));
      }
    }
    return results;
  },
};

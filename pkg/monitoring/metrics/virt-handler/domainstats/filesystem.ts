// The guest's filesystems as its agent reports them (upstream filesystem_metrics.go).
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import type { ResourceMetrics, VMIReport } from "./report.js";

export const filesystemCapacity: MetricDescription = {
  name: "kubevirt_vmi_filesystem_capacity_bytes",
  help: "Total VM filesystem capacity in bytes.",
  type: "gauge",
};
export const filesystemUsed: MetricDescription = {
  name: "kubevirt_vmi_filesystem_used_bytes",
  help: "Used VM filesystem capacity in bytes.",
  type: "gauge",
};

export const filesystemMetrics: ResourceMetrics = {
  metrics: [filesystemCapacity, filesystemUsed],
  collect(report: VMIReport): CollectorResult[] {
    return (report.stats.filesystems.items ?? []).flatMap((fs) => {
      const labels = {
        disk_name: fs.diskName,
        mount_point: fs.mountPoint,
        file_system_type: fs.fileSystemType,
      };
      return [
        report.result(filesystemCapacity, fs.totalBytes, labels),
        report.result(filesystemUsed, fs.usedBytes, labels),
      ];
    });
  },
};

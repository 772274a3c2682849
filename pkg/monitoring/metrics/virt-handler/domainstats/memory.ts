// The domain's memory (upstream memory_metrics.go), from virDomainMemoryStats in KiB, served in bytes.
import type { DomainStatsMemory } from "../../../../virt-launcher/virtwrap/stats/types.js";
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import { kibibytesToBytes, type ResourceMetrics, type VMIReport } from "./report.js";

const gauge = (name: string, help: string): MetricDescription => ({ name, help, type: "gauge" });
const counter = (name: string, help: string): MetricDescription => ({ name, help, type: "counter" });

export const memoryResident = gauge(
  "kubevirt_vmi_memory_resident_bytes",
  "Resident set size of the process running the domain.",
);
export const memoryAvailable = gauge(
  "kubevirt_vmi_memory_available_bytes",
  "Amount of usable memory as seen by the domain. This value may not be accurate if a balloon driver is in use or if the guest OS does not initialize all assigned pages",
);
export const memoryUnused = gauge(
  "kubevirt_vmi_memory_unused_bytes",
  "The amount of memory left completely unused by the system. Memory that is available but used for reclaimable caches should NOT be reported as free.",
);
export const memoryCached = gauge(
  "kubevirt_vmi_memory_cached_bytes",
  "The amount of memory that is being used to cache I/O and is available to be reclaimed, corresponds to the sum of `Buffers` + `Cached` + `SwapCached` in `/proc/meminfo`.",
);
export const memorySwapIn = gauge(
  "kubevirt_vmi_memory_swap_in_traffic_bytes",
  "The total amount of data read from swap space of the guest in bytes.",
);
export const memorySwapOut = gauge(
  "kubevirt_vmi_memory_swap_out_traffic_bytes",
  "The total amount of memory written out to swap space of the guest in bytes.",
);
export const memoryMajorFaults = counter(
  "kubevirt_vmi_memory_pgmajfault_total",
  "The number of page faults when disk IO was required. Page faults occur when a process makes a valid access to virtual memory that is not available. When servicing the page fault, if disk IO is required, it is considered as major fault.",
);
export const memoryMinorFaults = counter(
  "kubevirt_vmi_memory_pgminfault_total",
  "The number of other page faults, when disk IO was not required. Page faults occur when a process makes a valid access to virtual memory that is not available. When servicing the page fault, if disk IO is NOT required, it is considered as minor fault.",
);
export const memoryActualBalloon = gauge(
  "kubevirt_vmi_memory_actual_balloon_bytes",
  "Current balloon size in bytes.",
);
export const memoryUsable = gauge(
  "kubevirt_vmi_memory_usable_bytes",
  "The amount of memory which can be reclaimed by balloon without pushing the guest system to swap, corresponds to 'Available' in /proc/meminfo.",
);
export const memoryDomain = gauge(
  "kubevirt_vmi_memory_domain_bytes",
  "The amount of memory in bytes allocated to the domain. The `memory` value in domain xml file.",
);

type Figure =
  "RSS" | "Available" | "Unused" | "Cached" | "SwapIn" | "SwapOut" | "ActualBalloon" | "Usable" | "Total";

// The figures served in bytes; the page fault counts go as they are.
const IN_BYTES: [MetricDescription, Figure][] = [
  [memoryResident, "RSS"],
  [memoryAvailable, "Available"],
  [memoryUnused, "Unused"],
  [memoryCached, "Cached"],
  [memorySwapIn, "SwapIn"],
  [memorySwapOut, "SwapOut"],
  [memoryActualBalloon, "ActualBalloon"],
  [memoryUsable, "Usable"],
  [memoryDomain, "Total"],
];

export const memoryMetrics: ResourceMetrics = {
  metrics: [...IN_BYTES.map(([metric]) => metric), memoryMajorFaults, memoryMinorFaults],
  collect(report: VMIReport): CollectorResult[] {
    const memory = report.stats.domainStats.Memory;
    if (!memory) return [];
    const results: CollectorResult[] = [];
    const isSet = (figure: keyof DomainStatsMemory) =>
      memory[`${figure}Set` as keyof DomainStatsMemory] === true;
    for (const [metric, figure] of IN_BYTES) {
      if (isSet(figure)) results.push(report.result(metric, kibibytesToBytes(memory[figure])));
    }
    if (memory.MajorFaultSet) results.push(report.result(memoryMajorFaults, memory.MajorFault));
    if (memory.MinorFaultSet) results.push(report.result(memoryMinorFaults, memory.MinorFault));
    return results;
  },
};

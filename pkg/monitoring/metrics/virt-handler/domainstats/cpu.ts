// The domain's CPU time (upstream cpu_metrics.go), vCPUs and hypervisor together, and the guest's load average
// when the guest agent reports it.
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import { nanosecondsToSeconds, type ResourceMetrics, type VMIReport } from "./report.js";

export const cpuUsage: MetricDescription = {
  name: "kubevirt_vmi_cpu_usage_seconds_total",
  help: "Total CPU time spent in all modes (sum of both vcpu and hypervisor usage).",
  type: "counter",
};
export const cpuUserUsage: MetricDescription = {
  name: "kubevirt_vmi_cpu_user_usage_seconds_total",
  help: "Total CPU time spent in user mode.",
  type: "counter",
};
export const cpuSystemUsage: MetricDescription = {
  name: "kubevirt_vmi_cpu_system_usage_seconds_total",
  help: "Total CPU time spent in system mode.",
  type: "counter",
};
const loadHelp = (window: string) =>
  `Guest system load average over ${window} as reported by the guest agent. Load is defined as the number of processes in the runqueue or waiting for disk I/O. Requires qemu-guest-agent version 10.0.0 or above.`;
export const guestLoad1m: MetricDescription = {
  name: "kubevirt_vmi_guest_load_1m",
  help: loadHelp("1 minute"),
  type: "gauge",
};
export const guestLoad5m: MetricDescription = {
  name: "kubevirt_vmi_guest_load_5m",
  help: loadHelp("5 minutes"),
  type: "gauge",
};
export const guestLoad15m: MetricDescription = {
  name: "kubevirt_vmi_guest_load_15m",
  help: loadHelp("15 minutes"),
  type: "gauge",
};

export const cpuMetrics: ResourceMetrics = {
  metrics: [cpuUsage, cpuUserUsage, cpuSystemUsage, guestLoad1m, guestLoad5m, guestLoad15m],
  collect(report: VMIReport): CollectorResult[] {
    const results: CollectorResult[] = [];
    const { Cpu: cpu, Load: load } = report.stats.domainStats;
    if (cpu?.TimeSet) results.push(report.result(cpuUsage, nanosecondsToSeconds(cpu.Time)));
    if (cpu?.UserSet) results.push(report.result(cpuUserUsage, nanosecondsToSeconds(cpu.User)));
    if (cpu?.SystemSet) results.push(report.result(cpuSystemUsage, nanosecondsToSeconds(cpu.System)));
    if (load?.Load1mSet) results.push(report.result(guestLoad1m, load.Load1m));
    if (load?.Load5mSet) results.push(report.result(guestLoad5m, load.Load5m));
    if (load?.Load15mSet) results.push(report.result(guestLoad15m, load.Load15m));
    return results;
  },
};

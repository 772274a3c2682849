// Each vCPU's time (upstream vcpu_metrics.go): running time by state, and time waiting on I/O or in the queue.
import { VCPU_BLOCKED, VCPU_OFFLINE, VCPU_RUNNING } from "../../../../virt-launcher/virtwrap/stats/types.js";
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import { nanosecondsToSeconds, type ResourceMetrics, type VMIReport } from "./report.js";

export const vcpuSeconds: MetricDescription = {
  name: "kubevirt_vmi_vcpu_seconds_total",
  help: "Total amount of time spent in each state by each vcpu (cpu_time excluding hypervisor time). Where `id` is the vcpu identifier and `state` can be one of the following: [`OFFLINE`, `RUNNING`, `BLOCKED`].",
  type: "counter",
};
export const vcpuWaitSeconds: MetricDescription = {
  name: "kubevirt_vmi_vcpu_wait_seconds_total",
  help: "Amount of time spent by each vcpu while waiting on I/O.",
  type: "counter",
};
export const vcpuDelaySeconds: MetricDescription = {
  name: "kubevirt_vmi_vcpu_delay_seconds_total",
  help: "Amount of time spent by each vcpu waiting in the queue instead of running.",
  type: "counter",
};

export function vcpuState(state: number): string {
  switch (state) {
    case VCPU_OFFLINE:
      return "offline";
    case VCPU_BLOCKED:
      return "blocked";
    case VCPU_RUNNING:
      return "running";
    default:
      return "unknown";
  }
}

export const vcpuMetrics: ResourceMetrics = {
  metrics: [vcpuSeconds, vcpuWaitSeconds, vcpuDelaySeconds],
  collect(report: VMIReport): CollectorResult[] {
    const results: CollectorResult[] = [];
    (report.stats.domainStats.Vcpu ?? []).forEach((vcpu, index) => {
      const id = String(index);
      if (vcpu.TimeSet) {
        const labels = { id, state: vcpuState(vcpu.State) };
        results.push(report.result(vcpuSeconds, nanosecondsToSeconds(vcpu.Time), labels));
      }
      if (vcpu.WaitSet) results.push(report.result(vcpuWaitSeconds, nanosecondsToSeconds(vcpu.Wait), { id }));
      if (vcpu.DelaySet)
        results.push(report.result(vcpuDelaySeconds, nanosecondsToSeconds(vcpu.Delay), { id }));
    });
    return results;
  },
};

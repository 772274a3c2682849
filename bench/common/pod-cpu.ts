import { findPodProcesses, type PodLocation } from "./pod-processes.js";
import { readSchedstat, sampleProcess } from "./proc.js";

export interface PodUsage {
  /** CPU time so far of the pod's own processes, in clock ticks. */
  cpuTicks: number;
  /** How long their main threads (a Node process's event loop) waited on a run queue for a CPU, in ns. */
  runQueueWaitNs: number;
}

/**
 * What a pod's own processes (not the agent's supervising shells) used so far: two readings around a
 * load give what the pod spent on it, and how long it was kept from a CPU by the rest of the machine,
 * as long as no process of it ended between.
 */
export async function podUsage(location: PodLocation): Promise<PodUsage> {
  const procRoot = location.procRoot ?? "/proc";
  const { processes } = await findPodProcesses(location);
  const usage: PodUsage = { cpuTicks: 0, runQueueWaitNs: 0 };
  for (const { pid } of processes.filter((p) => !p.supervisor)) {
    usage.cpuTicks += (await sampleProcess(procRoot, pid, { pss: false }))?.cpuTicks ?? 0;
    usage.runQueueWaitNs += (await readSchedstat(procRoot, pid))?.waitNs ?? 0;
  }
  return usage;
}

import { findPodProcesses, type PodLocation } from "./pod-processes.js";
import { sampleProcess } from "./proc.js";

/**
 * The CPU time so far of a pod's own processes (not the agent's supervising shells), in clock ticks:
 * two readings around a load give what the pod spent on it, as long as no process of it ended between.
 */
export async function podCpuTicks(location: PodLocation): Promise<number> {
  const procRoot = location.procRoot ?? "/proc";
  const { processes } = await findPodProcesses(location);
  let ticks = 0;
  for (const { pid } of processes.filter((p) => !p.supervisor)) {
    ticks += (await sampleProcess(procRoot, pid, { pss: false }))?.cpuTicks ?? 0;
  }
  return ticks;
}

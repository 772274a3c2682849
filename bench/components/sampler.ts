import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { findPodProcesses } from "../common/pod-processes.js";
import { sampleProcess } from "../common/proc.js";
import type { ComponentPod } from "./pods.js";
import type { Observation, Tracker } from "./tracker.js";

// Sampling rounds over the component pods' processes: each round finds each pod's processes again (the
// node agent's records and the pod's cgroups, as bench/launcher-overhead does) and reads their /proc
// entries. The agent's supervising shells are left out: they are the runtime's, as a container shim is.

export interface SampleTarget {
  pods: readonly ComponentPod[];
  /** .local/nodes */
  nodesDir: string;
  /** /proc, or a fake tree in tests. */
  procRoot?: string;
}

export interface RoundOptions {
  /** Read PSS too (smaps_rollup, which walks page tables: slower, so not in frequent rounds). */
  pss: boolean;
  /** Collects why a pod could not be read, once each. */
  warnings: Set<string>;
}

export async function sampleRound(target: SampleTarget, options: RoundOptions): Promise<Observation[]> {
  const observations: Observation[] = [];
  for (const pod of target.pods) {
    let found;
    try {
      found = await findPodProcesses({
        nodesDir: target.nodesDir,
        node: pod.node,
        podUid: pod.uid,
        ...(target.procRoot === undefined ? {} : { procRoot: target.procRoot }),
      });
    } catch (error) {
      options.warnings.add(`pod ${pod.name}: ${(error as Error).message}`);
      continue;
    }
    for (const warning of found.warnings) options.warnings.add(`pod ${pod.name}: ${warning}`);
    for (const { pid } of found.processes.filter((p) => !p.supervisor)) {
      const sample = await sampleProcess(target.procRoot ?? "/proc", pid, { pss: options.pss });
      if (sample) observations.push({ pod, sample });
    }
  }
  return observations;
}

/**
 * Rounds every `intervalMs` until `until` settles (a round right then ends it) or, without it, for
 * `durationMs`, the last round at its end.
 */
export async function sampleRounds(
  tracker: Tracker,
  target: SampleTarget,
  options: RoundOptions & { intervalMs: number; durationMs?: number; until?: Promise<unknown> },
): Promise<void> {
  let finished = false;
  void options.until?.finally(() => (finished = true));
  const start = performance.now();
  for (;;) {
    const at = performance.now();
    tracker.record(at, await sampleRound(target, options));
    const elapsed = performance.now() - start;
    if (finished) return;
    if (options.durationMs !== undefined && at - start >= options.durationMs) return;
    const remaining = options.durationMs === undefined ? Infinity : options.durationMs - elapsed;
    const pause = sleep(Math.max(0, Math.min(options.intervalMs - (performance.now() - at), remaining)));
    await (options.until ? Promise.race([pause, options.until.catch(() => undefined)]) : pause);
  }
}

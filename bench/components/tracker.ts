import type { ProcessSample } from "../common/proc.js";
import type { ComponentPod } from "./pods.js";

// What the sampling rounds saw of each component process, turned into figures over the rounds. A process
// is its PID and start time (a PID the kernel reuses is another process). One present in the first round
// is counted from that round on; one that appeared later started during the rounds, so all its CPU time
// is theirs. One gone before the last round keeps what its last sample saw.

export interface Observation {
  pod: ComponentPod;
  sample: ProcessSample;
}

export interface TrackedProcess {
  pod: ComponentPod;
  pid: number;
  comm: string;
  argv: string[];
  /** Seen in the first round (else it started later). */
  fromStart: boolean;
  /** Seen in the last round. */
  toEnd: boolean;
  samples: number;
  firstRssKiB: number;
  lastRssKiB: number;
  maxRssKiB: number;
  /** The last PSS read (undefined when none was: the rounds skipped smaps_rollup, or it was unreadable). */
  lastPssKiB: number | undefined;
  firstHwmKiB: number;
  lastHwmKiB: number;
  /** CPU ticks spent between the first and the last round. */
  cpuTicks: number;
}

interface State {
  tracked: TrackedProcess;
  baseTicks: number;
  lastTicks: number;
}

export class Tracker {
  private readonly states = new Map<string, State>();
  /** Per pod uid: the highest RSS of all its processes together that one round saw. */
  private readonly podMaxRss = new Map<string, number>();
  private rounds = 0;
  private firstMs: number | undefined;
  private lastMs: number | undefined;

  /** One sampling round taken at `atMs` (any monotonic clock). */
  record(atMs: number, observations: readonly Observation[]): void {
    const first = this.rounds === 0;
    this.rounds++;
    this.firstMs ??= atMs;
    this.lastMs = atMs;
    for (const state of this.states.values()) state.tracked.toEnd = false;
    const podRss = new Map<string, number>();
    for (const { pod, sample } of observations)
      podRss.set(pod.uid, (podRss.get(pod.uid) ?? 0) + sample.rssKiB);
    for (const [uid, rss] of podRss) this.podMaxRss.set(uid, Math.max(this.podMaxRss.get(uid) ?? 0, rss));
    for (const { pod, sample } of observations) {
      const key = `${pod.uid}/${sample.pid}/${sample.startTicks}`;
      const state = this.states.get(key);
      if (!state) {
        this.states.set(key, {
          baseTicks: first ? sample.cpuTicks : 0,
          lastTicks: sample.cpuTicks,
          tracked: {
            pod,
            pid: sample.pid,
            comm: sample.comm,
            argv: sample.argv,
            fromStart: first,
            toEnd: true,
            samples: 1,
            firstRssKiB: sample.rssKiB,
            lastRssKiB: sample.rssKiB,
            maxRssKiB: sample.rssKiB,
            lastPssKiB: sample.pssKiB,
            firstHwmKiB: sample.hwmKiB,
            lastHwmKiB: sample.hwmKiB,
            cpuTicks: first ? 0 : sample.cpuTicks,
          },
        });
        continue;
      }
      const t = state.tracked;
      state.lastTicks = sample.cpuTicks;
      t.toEnd = true;
      t.samples++;
      t.lastRssKiB = sample.rssKiB;
      t.maxRssKiB = Math.max(t.maxRssKiB, sample.rssKiB);
      if (sample.pssKiB !== undefined) t.lastPssKiB = sample.pssKiB;
      t.lastHwmKiB = sample.hwmKiB;
      t.cpuTicks = state.lastTicks - state.baseTicks;
    }
  }

  /** Milliseconds from the first round to the last. */
  get elapsedMs(): number {
    return this.firstMs === undefined || this.lastMs === undefined ? 0 : this.lastMs - this.firstMs;
  }

  get roundCount(): number {
    return this.rounds;
  }

  processes(): TrackedProcess[] {
    return [...this.states.values()].map((state) => state.tracked);
  }

  /** The highest RSS of the pod's processes together in one round (0 when never seen). */
  maxPodRssKiB(podUid: string): number {
    return this.podMaxRss.get(podUid) ?? 0;
  }
}

export interface PodFigures {
  pod: ComponentPod;
  processes: TrackedProcess[];
  lastRssKiB: number;
  /** The highest RSS of the pod's processes together that one round saw. */
  maxRssKiB: number;
  lastPssKiB: number | undefined;
  /** The highest RSS the kernel saw (VmHWM), summed, and whether it rose during the rounds. */
  hwmKiB: number;
  hwmRose: boolean;
  cpuTicks: number;
}

/** The tracked processes summed per pod, in the pods' order. */
export function perPod(pods: readonly ComponentPod[], tracker: Tracker): PodFigures[] {
  const processes = tracker.processes();
  return pods.map((pod) => {
    const own = processes.filter((p) => p.pod.uid === pod.uid).sort((a, b) => a.pid - b.pid);
    const sum = (pick: (p: TrackedProcess) => number): number => own.reduce((total, p) => total + pick(p), 0);
    const pss = own.every((p) => p.lastPssKiB !== undefined) ? sum((p) => p.lastPssKiB ?? 0) : undefined;
    return {
      pod,
      processes: own,
      lastRssKiB: sum((p) => (p.toEnd ? p.lastRssKiB : 0)),
      maxRssKiB: tracker.maxPodRssKiB(pod.uid),
      lastPssKiB: own.length === 0 ? undefined : pss,
      hwmKiB: sum((p) => p.lastHwmKiB),
      hwmRose: own.some((p) => p.lastHwmKiB > p.firstHwmKiB),
      cpuTicks: sum((p) => p.cpuTicks),
    };
  });
}

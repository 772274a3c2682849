import type { Probe } from "./k8s-types.js";
import type { ProbeRunner, ProbeTarget } from "./probe-runner.js";

// The probes of one running container instance, with kubelet's semantics: startup gates the other two;
// readiness starts as not ready and flips after successThreshold successes or failureThreshold failures;
// liveness (and a startup probe that keeps failing) asks for the container to be killed and restarted.
// Defaults as in the API: period 10 s, timeout 1 s, success 1, failure 3, no initial delay.

export type ProbeKind = "Startup" | "Readiness" | "Liveness";

export interface ProbeListener {
  /** The ready or started flag changed: the pod status needs recomputing. */
  changed(): void;
  /** A probe failed (for a Warning event "Unhealthy"). */
  failed(kind: ProbeKind, message: string): void;
  /** Liveness or startup failed failureThreshold times: kill the container (it restarts per restartPolicy). */
  unhealthy(kind: ProbeKind, message: string): void;
}

/** Consecutive-result counting with thresholds; returns the new result when it flips. */
export class ProbeTracker {
  private successes = 0;
  private failures = 0;

  constructor(
    public result: boolean | undefined,
    private readonly successThreshold: number,
    private readonly failureThreshold: number,
  ) {}

  record(success: boolean): boolean {
    if (success) {
      this.successes++;
      this.failures = 0;
      if (this.successes >= this.successThreshold && this.result !== true) this.result = true;
    } else {
      this.failures++;
      this.successes = 0;
      if (this.failures >= this.failureThreshold && this.result !== false) this.result = false;
    }
    return this.result === true;
  }
}

export class ContainerProbes {
  /** The pending timer of each probe loop. */
  private readonly timers = new Map<ProbeKind, NodeJS.Timeout>();
  private stopped = false;
  private readonly startup: ProbeTracker | undefined;
  private readonly readiness: ProbeTracker | undefined;
  private readonly liveness: ProbeTracker | undefined;

  constructor(
    private readonly probes: { startup?: Probe; readiness?: Probe; liveness?: Probe },
    private readonly target: ProbeTarget,
    private readonly run: ProbeRunner,
    private readonly listener: ProbeListener,
  ) {
    const tracker = (p: Probe | undefined, initial: boolean | undefined) =>
      p ? new ProbeTracker(initial, p.successThreshold ?? 1, p.failureThreshold ?? 3) : undefined;
    this.startup = tracker(probes.startup, undefined);
    this.readiness = tracker(probes.readiness, false);
    this.liveness = tracker(probes.liveness, true);
    this.schedule("Startup", this.startup, probes.startup);
    this.schedule("Readiness", this.readiness, probes.readiness);
    this.schedule("Liveness", this.liveness, probes.liveness);
  }

  get started(): boolean {
    return !this.startup || this.startup.result === true;
  }

  get ready(): boolean {
    return this.started && (!this.readiness || this.readiness.result === true);
  }

  private schedule(kind: ProbeKind, tracker: ProbeTracker | undefined, probe: Probe | undefined): void {
    if (!tracker || !probe) return;
    const periodMs = (probe.periodSeconds ?? 10) * 1000;
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      // Liveness and readiness wait for the startup probe; the startup probe stops once it succeeded.
      const gated = kind !== "Startup" && !this.started;
      const done = kind === "Startup" && this.started;
      if (!gated && !done) await this.attempt(kind, tracker, probe);
      if (!this.stopped && !(kind === "Startup" && this.started)) this.later(kind, loop, periodMs);
    };
    this.later(kind, loop, (probe.initialDelaySeconds ?? 0) * 1000);
  }

  private later(kind: ProbeKind, fn: () => Promise<void>, ms: number): void {
    const timer = setTimeout(() => void fn(), ms);
    timer.unref();
    this.timers.set(kind, timer);
  }

  private async attempt(kind: ProbeKind, tracker: ProbeTracker, probe: Probe): Promise<void> {
    const before = { ready: this.ready, started: this.started };
    const outcome = await this.run(probe, this.target);
    if (this.stopped) return;
    const previous = tracker.result;
    tracker.record(outcome.success);
    if (!outcome.success) this.listener.failed(kind, `${kind} probe failed: ${outcome.message}`);
    if (kind !== "Readiness" && tracker.result === false && previous !== false) {
      this.listener.unhealthy(kind, outcome.message);
    }
    if (before.ready !== this.ready || before.started !== this.started) this.listener.changed();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
  }
}

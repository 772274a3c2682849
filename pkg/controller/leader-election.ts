import { isNotFound } from "./api-error.js";
import { systemClock, type Clock } from "./clock.js";
import type { LeaderElectionRecord, ResourceLock } from "./lease-lock.js";
import { defaultLogger, type Logger } from "./log.js";

// client-go's tools/leaderelection LeaderElector. Candidates try to acquire the lock every retryPeriod
// (jittered); a lock is free when its holder is empty or it was not renewed for leaseDuration as measured
// on the local clock since the record last changed. The leader renews every retryPeriod and gives up
// leadership when it could not renew for renewDeadline. On shutdown it releases the lock by clearing the
// holder, so a successor takes over at its next retry instead of waiting out the lease.

export const JitterFactor = 1.2;

export interface LeaderCallbacks {
  /** Called when this candidate becomes leader; `signal` aborts when it stops leading. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called when run() ends, whether or not this candidate ever led (as in client-go). */
  onStoppedLeading(): void;
  /** Called when the observed leader changes (including to this candidate). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  callbacks: LeaderCallbacks;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Clear the holder when run() is stopped while leading (default true). */
  releaseOnCancel?: boolean;
  name?: string;
  clock?: Clock;
  logger?: Logger;
  /** [0, 1) source for retry jitter. */
  random?: () => number;
}

export const defaultLeaseDurationMs = 15_000;
export const defaultRenewDeadlineMs = 10_000;
export const defaultRetryPeriodMs = 2_000;

export class LeaderElector {
  private readonly lock: ResourceLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly random: () => number;
  private observed: LeaderElectionRecord | undefined;
  private observedRaw = "";
  private observedTime = 0;
  private reportedLeader = "";

  constructor(private readonly config: LeaderElectionConfig) {
    this.lock = config.lock;
    this.leaseDurationMs = config.leaseDurationMs ?? defaultLeaseDurationMs;
    this.renewDeadlineMs = config.renewDeadlineMs ?? defaultRenewDeadlineMs;
    this.retryPeriodMs = config.retryPeriodMs ?? defaultRetryPeriodMs;
    this.clock = config.clock ?? systemClock;
    this.logger = config.logger ?? defaultLogger;
    this.random = config.random ?? Math.random;
    if (this.leaseDurationMs <= this.renewDeadlineMs)
      throw new Error("leaseDuration must be greater than renewDeadline");
    if (this.renewDeadlineMs <= JitterFactor * this.retryPeriodMs) {
      throw new Error("renewDeadline must be greater than retryPeriod*JitterFactor");
    }
    if (this.retryPeriodMs < 1) throw new Error("retryPeriod must be greater than zero");
    if (!this.lock.identity()) throw new Error("Lock identity is empty");
  }

  getLeader(): string {
    return this.observed?.holderIdentity ?? "";
  }

  isLeader(): boolean {
    return this.observed?.holderIdentity === this.lock.identity();
  }

  /** Campaigns, leads until leadership is lost or the signal aborts, then releases and reports. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const stopLeading = () => leading.abort();
      signal.addEventListener("abort", stopLeading, { once: true });
      this.startLeading(leading.signal);
      try {
        await this.renew(leading.signal);
      } finally {
        leading.abort();
        signal.removeEventListener("abort", stopLeading);
        this.lock.recordEvent("stopped leading");
      }
      if (this.config.releaseOnCancel ?? true) await this.release();
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  /** Health check: failing when leading but the lease was not renewed for leaseDuration + tolerance. */
  check(maxTolerableExpiredLeaseMs: number): Error | undefined {
    if (!this.isLeader()) return undefined;
    if (this.clock.now() - this.observedTime > this.leaseDurationMs + maxTolerableExpiredLeaseMs) {
      return new Error(
        `failed election to renew leadership on lease ${this.config.name ?? this.lock.describe()}`,
      );
    }
    return undefined;
  }

  private startLeading(signal: AbortSignal): void {
    void (async () => {
      try {
        await this.config.callbacks.onStartedLeading(signal);
      } catch (err) {
        this.logger.error({ err, lock: this.lock.describe() }, "onStartedLeading failed");
      }
    })();
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info({ lock: this.lock.describe() }, "attempting to acquire leader lease");
    while (!signal.aborted) {
      const acquired = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (acquired) {
        this.lock.recordEvent("became leader");
        this.logger.info({ lock: this.lock.describe() }, "successfully acquired lease");
        return true;
      }
      const jitter = this.random() * JitterFactor * this.retryPeriodMs;
      await this.clock.sleep(this.retryPeriodMs + jitter, signal);
    }
    return false;
  }

  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.renewWithinDeadline(signal))) {
        if (!signal.aborted)
          this.logger.info({ lock: this.lock.describe() }, "failed to renew lease, stopped leading");
        return;
      }
      await this.clock.sleep(this.retryPeriodMs, signal);
    }
  }

  /** Retries every retryPeriod until renewed, or until renewDeadline has passed. */
  private async renewWithinDeadline(signal: AbortSignal): Promise<boolean> {
    const deadline = this.clock.now() + this.renewDeadlineMs;
    const attempt = new AbortController();
    const stopAttempt = () => attempt.abort();
    signal.addEventListener("abort", stopAttempt, { once: true });
    const timer = this.clock.sleep(this.renewDeadlineMs, attempt.signal).then(stopAttempt);
    try {
      for (;;) {
        const renewed = await this.tryAcquireOrRenew(attempt.signal);
        this.maybeReportTransition();
        if (renewed) return true;
        const left = deadline - this.clock.now();
        if (left <= 0 || attempt.signal.aborted) return false;
        await this.clock.sleep(Math.min(this.retryPeriodMs, left), attempt.signal);
        if (this.clock.now() >= deadline || attempt.signal.aborted) return false;
      }
    } finally {
      stopAttempt();
      signal.removeEventListener("abort", stopAttempt);
      await timer;
    }
  }

  private async release(): Promise<void> {
    const attempt = new AbortController();
    const timer = this.clock.sleep(this.renewDeadlineMs, attempt.signal).then(() => attempt.abort());
    try {
      const { record: old } = await this.lock.get(attempt.signal);
      if (!this.isLeader()) return;
      const now = this.clock.now();
      const released: LeaderElectionRecord = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: old.leaderTransitions,
      };
      await this.lock.update(released, attempt.signal);
      this.setObserved(released);
      this.logger.info({ lock: this.lock.describe() }, "released leader lease");
    } catch (err) {
      this.logger.error({ err, lock: this.lock.describe() }, "failed to release lock");
    } finally {
      attempt.abort();
      await timer;
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.lock.identity(),
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // Fast path: we hold a valid lease, so update straight from what we last wrote.
    if (this.isLeader() && this.isLeaseValid(now) && this.observed) {
      const renewal = {
        ...desired,
        acquireTime: this.observed.acquireTime,
        leaderTransitions: this.observed.leaderTransitions,
      };
      try {
        await this.lock.update(renewal, signal);
        this.setObserved(renewal);
        return true;
      } catch (err) {
        this.logger.warn(
          { err, lock: this.lock.describe() },
          "failed to update lock optimistically, falling back to slow path",
        );
      }
    }

    let current;
    try {
      current = await this.lock.get(signal);
    } catch (err) {
      if (!isNotFound(err)) {
        this.logger.warn({ err, lock: this.lock.describe() }, "error retrieving resource lock");
        return false;
      }
      try {
        await this.lock.create(desired, signal);
      } catch (createErr) {
        this.logger.warn(
          { err: createErr, lock: this.lock.describe() },
          "error initially creating leader election record",
        );
        return false;
      }
      this.setObserved(desired);
      return true;
    }

    if (current.raw !== this.observedRaw) {
      this.setObserved(current.record);
      this.observedRaw = current.raw;
    }
    const old = current.record;
    if (old.holderIdentity && this.isLeaseValid(now) && !this.isLeader()) {
      this.logger.debug(
        { holder: old.holderIdentity, lock: this.lock.describe() },
        "lock is held and has not yet expired",
      );
      return false;
    }
    const next = this.isLeader()
      ? { ...desired, acquireTime: old.acquireTime, leaderTransitions: old.leaderTransitions }
      : { ...desired, leaderTransitions: old.leaderTransitions + 1 };
    try {
      await this.lock.update(next, signal);
    } catch (err) {
      this.logger.warn({ err, lock: this.lock.describe() }, "failed to update lock");
      return false;
    }
    this.setObserved(next);
    return true;
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + (this.observed?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private setObserved(record: LeaderElectionRecord): void {
    this.observed = record;
    this.observedTime = this.clock.now();
  }

  private maybeReportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.config.callbacks.onNewLeader;
    if (!onNewLeader) return;
    queueMicrotask(() => {
      try {
        onNewLeader(holder);
      } catch (err) {
        this.logger.error({ err, lock: this.lock.describe() }, "onNewLeader failed");
      }
    });
  }
}

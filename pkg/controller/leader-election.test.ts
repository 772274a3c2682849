import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaderElector, type LeaderElectionConfig } from "./leader-election.js";
import { silentLogger } from "./log.js";
import { FakeLeaseLock, FakeLeaseStore } from "./testing/fake-lease-lock.js";

interface Candidate {
  id: string;
  elector: LeaderElector;
  lock: FakeLeaseLock;
  stop: AbortController;
  done: Promise<void>;
  log: string[];
  leading: AbortSignal | undefined;
  finished: boolean;
}

function candidate(
  store: FakeLeaseStore,
  id: string,
  overrides: Partial<LeaderElectionConfig> = {},
): Candidate {
  const lock = new FakeLeaseLock(store, id);
  const c = {
    id,
    lock,
    stop: new AbortController(),
    log: [] as string[],
    leading: undefined,
    finished: false,
  } as Candidate;
  c.elector = new LeaderElector({
    lock,
    logger: silentLogger,
    random: () => 0,
    callbacks: {
      onStartedLeading: (signal) => {
        c.log.push("started");
        c.leading = signal;
      },
      onStoppedLeading: () => c.log.push("stopped"),
      onNewLeader: (identity) => c.log.push(`leader=${identity}`),
    },
    ...overrides,
  });
  c.done = c.elector.run(c.stop.signal).then(() => {
    c.finished = true;
  });
  return c;
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe("LeaderElector", () => {
  let store: FakeLeaseStore;
  const running: Candidate[] = [];

  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse("2025-01-01T00:00:00Z") });
    store = new FakeLeaseStore();
  });

  afterEach(async () => {
    store.down = false;
    for (const c of running.splice(0)) c.stop.abort();
    await advance(30_000);
    vi.useRealTimers();
  });

  function start(id: string, overrides?: Partial<LeaderElectionConfig>): Candidate {
    const c = candidate(store, id, overrides);
    running.push(c);
    return c;
  }

  it("creates the lease when there is none, leads, and renews every retry period", async () => {
    const a = start("a");
    await advance(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.log).toEqual(["leader=a", "started"]);
    expect(a.lock.events).toEqual(["a became leader"]);
    expect(store.record).toMatchObject({
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      leaderTransitions: 0,
    });
    const acquired = store.record?.acquireTime;
    await advance(6_000);
    expect(store.record?.renewTime).toBe(Date.parse("2025-01-01T00:00:06Z"));
    expect(store.record?.acquireTime).toBe(acquired);
    expect(store.writes).toBe(5); // create, renew at once on leading (as client-go), then at 2, 4, 6 s
  });

  it("does not take a lease another candidate keeps renewing", async () => {
    const a = start("a");
    await advance(0);
    const b = start("b");
    await advance(60_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.getLeader()).toBe("a");
    expect(b.log).toEqual(["leader=a"]);
  });

  it("takes over a lease whose holder stopped renewing, once leaseDuration has passed on its own clock", async () => {
    store.overwrite({
      holderIdentity: "gone",
      leaseDurationSeconds: 15,
      acquireTime: 0,
      renewTime: 0,
      leaderTransitions: 3,
    });
    const b = start("b");
    await advance(14_000);
    expect(b.elector.isLeader()).toBe(false);
    await advance(4_000); // first seen at t=0, valid until 15s, next retry after that
    expect(b.elector.isLeader()).toBe(true);
    expect(store.record).toMatchObject({ holderIdentity: "b", leaderTransitions: 4 });
    expect(b.log).toEqual(["leader=gone", "leader=b", "started"]);
  });

  it("stops leading when it cannot renew within the renew deadline", async () => {
    const a = start("a");
    await advance(0);
    store.down = true;
    await advance(9_000);
    expect(a.leading?.aborted).toBe(false);
    expect(a.finished).toBe(false);
    await advance(4_000);
    expect(a.leading?.aborted).toBe(true);
    expect(a.finished).toBe(true);
    expect(a.log).toEqual(["leader=a", "started", "stopped"]);
  });

  it("stops leading when another holder took the lease", async () => {
    const a = start("a");
    await advance(0);
    store.overwrite({
      holderIdentity: "thief",
      leaseDurationSeconds: 15,
      acquireTime: 1,
      renewTime: 1,
      leaderTransitions: 1,
    });
    await advance(12_000);
    expect(a.leading?.aborted).toBe(true);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.log).toContain("leader=thief");
    expect(a.log.at(-1)).toBe("stopped");
    expect(store.record?.holderIdentity).toBe("thief"); // not released: it was not ours any more
  });

  it("releases on shutdown so a waiting candidate takes over at its next retry", async () => {
    const a = start("a");
    await advance(0);
    const b = start("b");
    await advance(3_000);
    a.stop.abort();
    await advance(0);
    expect(a.finished).toBe(true);
    expect(a.leading?.aborted).toBe(true);
    expect(store.record).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    await advance(2_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(store.record).toMatchObject({ holderIdentity: "b", leaderTransitions: 1 });
  });

  it("keeps the lease on shutdown when releaseOnCancel is off", async () => {
    const a = start("a", { releaseOnCancel: false });
    await advance(0);
    a.stop.abort();
    await advance(0);
    expect(store.record?.holderIdentity).toBe("a");
  });

  it("calls onStoppedLeading even when stopped before ever leading, like client-go", async () => {
    store.overwrite({
      holderIdentity: "other",
      leaseDurationSeconds: 15,
      acquireTime: 0,
      renewTime: 0,
      leaderTransitions: 0,
    });
    const b = start("b");
    await advance(1_000);
    b.stop.abort();
    await advance(0);
    expect(b.log).toEqual(["leader=other", "stopped"]);
  });

  it("reports through check() when leading without renewal for too long", async () => {
    const a = start("a");
    await advance(0);
    expect(a.elector.check(20_000)).toBeUndefined();
    store.down = true;
    vi.setSystemTime(Date.now() + 40_000); // time jumps without timers firing
    expect(a.elector.check(20_000)?.message).toMatch(/failed election to renew leadership/);
  });

  it.each<[Partial<LeaderElectionConfig>, RegExp]>([
    [
      { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
      /leaseDuration must be greater than renewDeadline/,
    ],
    [
      { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      /renewDeadline must be greater than retryPeriod\*JitterFactor/,
    ],
  ])("rejects inconsistent timings %j", (timings, message) => {
    const lock = new FakeLeaseLock(store, "a");
    const callbacks = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    expect(() => new LeaderElector({ lock, callbacks, ...timings })).toThrow(message);
    expect(() => new LeaderElector({ lock: new FakeLeaseLock(store, ""), callbacks })).toThrow(
      /identity is empty/,
    );
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "./log.js";
import { WorkQueue } from "./workqueue.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const newQueue = () => new WorkQueue<string>({ logger: silentLogger });

describe("WorkQueue basics", () => {
  it("folds repeated adds of a waiting key", async () => {
    const q = newQueue();
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.len()).toBe(2);
    expect([await q.get(), await q.get()]).toEqual(["a", "b"]);
  });

  it("holds back a key added while it is processing, then hands it out once more after done", async () => {
    const q = newQueue();
    q.add("a");
    const item = await q.get();
    q.add("a");
    q.add("a");
    expect(q.len()).toBe(0); // not available to a second worker
    q.done(item!);
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("wakes a waiting get when an item arrives", async () => {
    const q = newQueue();
    const got = q.get();
    q.add("x");
    await expect(got).resolves.toBe("x");
  });
});

describe("WorkQueue delays", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("addAfter adds once the delay passed, and the earliest of several delays wins", async () => {
    const q = newQueue();
    q.addAfter("a", 100);
    q.addAfter("a", 50);
    q.addAfter("a", 500);
    await vi.advanceTimersByTimeAsync(49);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(q.len()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(q.len()).toBe(1);
  });

  it("retries a failing key with growing backoff, and forget after success resets it", async () => {
    const q = newQueue();
    const calls: number[] = [];
    let failUntil = 4;
    const stop = new AbortController();
    const start = Date.now();
    const running = q.run(
      1,
      (key) => {
        calls.push(Date.now() - start);
        if (calls.length <= failUntil) throw new Error(`sync ${key} failed`);
      },
      stop.signal,
    );
    q.add("k");
    await vi.advanceTimersByTimeAsync(1000);
    // immediate, then +5, +10, +20, +40 ms
    expect(calls).toEqual([0, 5, 15, 35, 75]);
    expect(q.numRequeues("k")).toBe(0);

    failUntil = 6;
    const t = Date.now() - start;
    q.add("k");
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.slice(5).map((c) => c - t)).toEqual([0, 5]); // backoff starts over at 5ms
    stop.abort();
    await running;
  });

  it("requeues after the delay a handler asks for, without counting a failure", async () => {
    const q = newQueue();
    const calls: number[] = [];
    const stop = new AbortController();
    const running = q.run(
      2,
      () => {
        calls.push(Date.now());
        return calls.length < 3 ? { requeueAfter: 30_000 } : undefined;
      },
      stop.signal,
    );
    q.add("vm");
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls.length).toBe(3);
    expect((calls[2] ?? 0) - (calls[1] ?? 0)).toBe(30_000);
    expect(q.numRequeues("vm")).toBe(0);
    stop.abort();
    await running;
  });
});

describe("WorkQueue.run", () => {
  it("never runs one key on two workers at once, and re-runs it once for adds during processing", async () => {
    const q = newQueue();
    const active = new Map<string, number>();
    const runs = new Map<string, number>();
    let maxPerKey = 0;
    let maxOverall = 0;
    const stop = new AbortController();
    const running = q.run(
      8,
      async (key) => {
        active.set(key, (active.get(key) ?? 0) + 1);
        maxPerKey = Math.max(maxPerKey, active.get(key) ?? 0);
        maxOverall = Math.max(
          maxOverall,
          [...active.values()].reduce((a, b) => a + b, 0),
        );
        runs.set(key, (runs.get(key) ?? 0) + 1);
        if (runs.get(key) === 1) for (let i = 0; i < 5; i++) q.add(key); // repeated adds while processing
        await new Promise((r) => setTimeout(r, 2));
        active.set(key, (active.get(key) ?? 1) - 1);
      },
      stop.signal,
    );
    for (const key of ["a", "b", "c", "d"]) for (let i = 0; i < 10; i++) q.add(key);
    await vi.waitFor(() => expect([...runs.values()]).toEqual([2, 2, 2, 2]));
    await new Promise((r) => setTimeout(r, 20));
    expect(maxPerKey).toBe(1);
    expect(maxOverall).toBeGreaterThan(1); // distinct keys do run in parallel
    expect([...runs.values()]).toEqual([2, 2, 2, 2]);
    stop.abort();
    await running;
  });

  it("idle resolves only once every queued item, and the re-run of one added while busy, is done", async () => {
    const q = newQueue();
    const gate = deferred();
    const seen: string[] = [];
    const stop = new AbortController();
    await q.idle(); // nothing queued: already idle
    const running = q.run(
      2,
      async (key) => {
        seen.push(key);
        if (seen.length === 1) await gate.promise;
      },
      stop.signal,
    );
    q.add("a");
    await Promise.resolve();
    q.add("a"); // while "a" runs: held back, handed out again after done
    q.add("b");
    let idle = false;
    const waiting = q.idle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(idle).toBe(false);
    gate.resolve();
    await waiting;
    expect(seen).toEqual(["a", "b", "a"]);
    stop.abort();
    await running;
  });

  it("on abort: finishes the item in flight and the queued ones, ignores new adds, then resolves", async () => {
    const q = newQueue();
    const gate = deferred();
    const processed: string[] = [];
    const stop = new AbortController();
    const running = q.run(
      1,
      async (key) => {
        if (key === "slow") await gate.promise;
        processed.push(key);
      },
      stop.signal,
    );
    q.add("slow");
    q.add("queued");
    await new Promise((r) => setTimeout(r, 0));
    stop.abort();
    q.add("late");
    q.addAfter("delayed", 1);
    let finished = false;
    void running.then(() => (finished = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(finished).toBe(false); // still waiting for the in-flight item
    gate.resolve();
    await running;
    expect(processed).toEqual(["slow", "queued"]);
    expect(q.shuttingDown).toBe(true);
  });

  it("shutDownWithDrain resolves only after in-flight items are done", async () => {
    const q = newQueue();
    q.add("a");
    const item = await q.get();
    let drained = false;
    const draining = q.shutDownWithDrain().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(drained).toBe(false);
    await expect(q.get()).resolves.toBeUndefined();
    q.done(item!);
    await draining;
    expect(drained).toBe(true);
  });
});

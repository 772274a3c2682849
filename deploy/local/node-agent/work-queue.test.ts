import { describe, expect, it, vi } from "vitest";
import { WorkQueue } from "./work-queue.js";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("WorkQueue", () => {
  it("folds repeated adds of a busy key into one re-run, never running it twice at once", async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (seen.length === 1) await gate;
        concurrent--;
      },
      { workers: 4 },
    );
    // "a" blocks; while it runs, more adds of "a" fold into one re-run, and "b" runs beside it.
    queue.add("a");
    await tick();
    queue.add("a"); // while "a" runs: marked dirty, runs once more afterwards
    queue.add("a");
    queue.add("b");
    await tick();
    release();
    await queue.idle();
    expect(seen).toEqual(["a", "b", "a"]);
    expect(maxConcurrent).toBe(2);
  });

  it("retries a failing key with growing delays and honours requeueAfterMs", async () => {
    vi.useFakeTimers();
    try {
      const calls: number[] = [];
      let failures = 2;
      const queue = new WorkQueue(
        async () => {
          calls.push(Date.now());
          if (failures-- > 0) throw new Error("boom");
          if (calls.length === 3) return { requeueAfterMs: 5000 };
        },
        { workers: 1, errorBackoffBaseMs: 100 },
      );
      const start = Date.now();
      queue.add("k");
      await vi.advanceTimersByTimeAsync(10_000);
      expect(calls.map((t) => t - start)).toEqual([0, 100, 300, 5300]);
      queue.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("WorkQueue folding of queued keys", () => {
  it("runs a key added many times before a worker is free once", async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async (key) => void seen.push(key), { workers: 1 });
    queue.add("k"); // occupies the only worker, so the adds of "j" wait in the queue
    queue.add("j");
    queue.add("j");
    queue.add("j");
    await queue.idle();
    expect(seen).toEqual(["k", "j"]);
  });
});

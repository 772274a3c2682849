import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Backoff, systemClock } from "./clock.js";

describe("systemClock.sleep", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("resolves after the delay, or early on abort", async () => {
    let slept = false;
    void systemClock.sleep(1000).then(() => (slept = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(slept).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(slept).toBe(true);

    const ctl = new AbortController();
    let woke = false;
    void systemClock.sleep(60_000, ctl.signal).then(() => (woke = true));
    ctl.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
  });
});

describe("Backoff", () => {
  it("doubles up to the cap and starts over after reset", () => {
    const b = new Backoff(800, 3000);
    expect([b.next(), b.next(), b.next(), b.next()]).toEqual([800, 1600, 3000, 3000]);
    b.reset();
    expect(b.next()).toBe(800);
  });
});

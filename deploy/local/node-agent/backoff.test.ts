import { describe, expect, it } from "vitest";
import { Backoff } from "./backoff.js";

describe("Backoff", () => {
  it("lets the first retry through, then doubles from 10 s up to 5 minutes", () => {
    const clock = { t: 1_000_000 };
    const backoff = new Backoff(10_000, 300_000, () => clock.t);
    const delays: number[] = [];
    for (let crash = 0; crash < 8; crash++) {
      const finishedAt = clock.t;
      // A crash restarts once the back-off since it finished is over.
      const wait = backoff.remaining("c", finishedAt);
      delays.push(wait);
      clock.t += wait;
      expect(backoff.isInBackOffSince("c", finishedAt)).toBe(false);
      backoff.next("c", finishedAt);
      clock.t += 1; // the container runs briefly and crashes again
    }
    expect(delays).toEqual([0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it("starts over after twice the maximum without events", () => {
    const clock = { t: 0 };
    const backoff = new Backoff(10_000, 300_000, () => clock.t);
    backoff.next("c", 0);
    backoff.next("c", 0);
    expect(backoff.get("c")).toBe(20_000);
    clock.t = 600_001;
    backoff.next("c", clock.t);
    expect(backoff.get("c")).toBe(10_000);
  });

  it("keeps keys apart and forgets a pod's keys", () => {
    const backoff = new Backoff(10_000, 300_000, () => 0);
    backoff.next("pod1/a", 0);
    backoff.next("pod2/a", 0);
    backoff.forget("pod1/");
    expect(backoff.get("pod1/a")).toBe(0);
    expect(backoff.get("pod2/a")).toBe(10_000);
  });
});

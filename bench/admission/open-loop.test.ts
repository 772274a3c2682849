import { describe, expect, it } from "vitest";
import { openLoop, requestCount, type Clock } from "./open-loop.js";

/** A clock that moves only when the loop sleeps, or when a send takes time. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 1000;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

describe("open loop", () => {
  it("counts the requests of a rate and duration", () => {
    expect(requestCount(200, 20_000)).toBe(4000);
    expect(requestCount(3, 1000)).toBe(3);
    expect(requestCount(2.5, 1000)).toBe(3);
  });

  it("sends each request at its time, without waiting for the answers", async () => {
    const clock = fakeClock();
    const answered: (() => void)[] = [];
    const sentAt: number[] = [];
    const load = openLoop({
      rate: 100,
      durationMs: 50,
      clock,
      // Never answered until the end: a closed loop would stop after the first.
      send: (index) => {
        sentAt.push(clock.now());
        return new Promise<number>((resolve) => answered.push(() => resolve(index)));
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sentAt).toEqual([1000, 1010, 1020, 1030, 1040]);
    for (const answer of answered) answer();
    const sent = await load;
    expect(sent.map((s) => [s.index, s.dueMs, s.lagMs, s.result])).toEqual([
      [0, 0, 0, 0],
      [1, 10, 0, 1],
      [2, 20, 0, 2],
      [3, 30, 0, 3],
      [4, 40, 0, 4],
    ]);
  });

  it("sends overdue requests at once when the sender fell behind, and records how late", async () => {
    const clock = fakeClock();
    const sent = await openLoop({
      rate: 100,
      durationMs: 40,
      clock,
      send: async (index) => {
        // The second send blocks the sender for 25 ms.
        if (index === 1) clock.advance(25);
        return index;
      },
    });
    expect(sent.map((s) => [s.index, s.dueMs, s.lagMs])).toEqual([
      [0, 0, 0],
      [1, 10, 0],
      [2, 20, 15],
      [3, 30, 5],
    ]);
  });
});

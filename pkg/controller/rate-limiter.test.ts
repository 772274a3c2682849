import { describe, expect, it } from "vitest";
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  defaultControllerRateLimiter,
} from "./rate-limiter.js";
import { TokenBucket } from "./token-bucket.js";

function manualClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("ItemExponentialFailureRateLimiter", () => {
  it("doubles per failure from the base, per item, and forget resets", () => {
    const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    expect([rl.when("a"), rl.when("a"), rl.when("a"), rl.when("b")]).toEqual([5, 10, 20, 5]);
    expect(rl.numRequeues("a")).toBe(3);
    rl.forget("a");
    expect(rl.numRequeues("a")).toBe(0);
    expect(rl.when("a")).toBe(5);
  });

  it("caps at the maximum, even after very many failures", () => {
    const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    const delays = Array.from({ length: 2000 }, () => rl.when("x"));
    expect(delays.slice(0, 9)).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000]);
    expect(delays.at(-1)).toBe(1000);
  });
});

describe("TokenBucket / BucketRateLimiter", () => {
  it("lets a burst through, then spaces items at 1/qps, refilling over time", () => {
    const clock = manualClock();
    const rl = new BucketRateLimiter<string>(10, 3, clock);
    expect([rl.when("a"), rl.when("b"), rl.when("c")]).toEqual([0, 0, 0]);
    expect(rl.when("d")).toBeCloseTo(100);
    expect(rl.when("e")).toBeCloseTo(200);
    clock.advance(1000); // refill to the burst, not beyond
    expect([rl.when("f"), rl.when("g"), rl.when("h")]).toEqual([0, 0, 0]);
    expect(rl.when("i")).toBeCloseTo(100);
  });

  it("tryAccept takes a token only when one is there", () => {
    const clock = manualClock();
    const bucket = new TokenBucket(1 / 300, 2, clock);
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, false]);
    clock.advance(299_000);
    expect(bucket.tryAccept()).toBe(false);
    clock.advance(1_000);
    expect(bucket.tryAccept()).toBe(true);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("starts at 5ms per item and reaches 1000s at most", () => {
    const rl = defaultControllerRateLimiter<string>(manualClock());
    expect(rl.when("k")).toBe(5);
    expect(rl.when("k")).toBe(10);
    for (let i = 0; i < 40; i++) rl.when("k");
    expect(rl.when("k")).toBe(1_000_000);
    rl.forget("k");
    expect(rl.numRequeues("k")).toBe(0);
  });

  it("applies the global 10 qps limit once the burst of 100 is spent", () => {
    const rl = defaultControllerRateLimiter<number>(manualClock());
    const delays = Array.from({ length: 110 }, (_, i) => rl.when(i));
    expect(delays.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(delays[100]).toBeCloseTo(100);
    expect(delays[109]).toBeCloseTo(1000);
  });
});

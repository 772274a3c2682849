import { describe, expect, it } from "vitest";
import { percentile, spread } from "./stats.js";

describe("spread", () => {
  it("gives min, median and max whatever the order", () => {
    expect(spread([3, 1, 2])).toEqual({ count: 3, min: 1, median: 2, max: 3 });
  });

  it("takes the mean of the two middle values for an even count", () => {
    expect(spread([4, 1, 3, 2])).toEqual({ count: 4, min: 1, median: 2.5, max: 4 });
    expect(spread([0.2])).toEqual({ count: 1, min: 0.2, median: 0.2, max: 0.2 });
  });

  it("has nothing to say about no values, and leaves its input alone", () => {
    expect(spread([])).toBeUndefined();
    const values = [2, 1];
    spread(values);
    expect(values).toEqual([2, 1]);
  });
});

describe("percentile", () => {
  const hundred = Array.from({ length: 100 }, (_, index) => index + 1);

  it("takes the nearest rank: a value that was measured", () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    // One sample in 200 over the rest is the p99.5, not the p99.
    const outlier = [...Array.from({ length: 199 }, () => 1), 40];
    expect(percentile(outlier, 99)).toBe(1);
    expect(percentile(outlier, 100)).toBe(40);
  });

  it("says nothing without samples, and refuses a percentile outside (0, 100]", () => {
    expect(percentile([], 99)).toBeUndefined();
    expect(() => percentile(hundred, 0)).toThrow(RangeError);
    expect(() => percentile(hundred, 101)).toThrow(RangeError);
  });
});

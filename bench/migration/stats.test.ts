import { describe, expect, it } from "vitest";
import { spread } from "./stats.js";

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

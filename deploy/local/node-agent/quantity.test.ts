import { describe, expect, it } from "vitest";
import { parseQuantity } from "./quantity.js";

describe("parseQuantity", () => {
  it.each([
    ["500m", 0.5],
    ["2Gi", 2 * 2 ** 30],
    ["1e3", 1000],
    ["1.5G", 1.5e9],
    [4, 4],
  ] as const)("%s is %d base units", (text, units) => {
    expect(parseQuantity(text)).toBe(units);
  });

  it("refuses text the apiserver would refuse", () => {
    expect(() => parseQuantity("2 GiB")).toThrow(/quantities must match the regular expression/);
  });
});

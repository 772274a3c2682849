import { describe, expect, it } from "vitest";
import { formatGoDuration, parseGoDuration } from "./go-duration.js";

describe("formatGoDuration", () => {
  // The whole-second delays kubelet's crash back-off prints in "back-off 1m20s restarting failed container".
  it.each([
    [10_000, "10s"],
    [80_000, "1m20s"],
    [300_000, "5m0s"],
    [3_725_000, "1h2m5s"],
  ])("%d ms is %s", (ms, text) => expect(formatGoDuration(ms)).toBe(text));
});

describe("parseGoDuration and formatGoDuration", () => {
  it.each([
    ["24h", 86_400_000, "24h0m0s"],
    ["168h", 604_800_000, "168h0m0s"],
    ["1h30m", 5_400_000, "1h30m0s"],
    ["90s", 90_000, "1m30s"],
    ["1.5s", 1500, "1.5s"],
    ["250ms", 250, "250ms"],
    ["0", 0, "0s"],
  ])("%s is %d ms and prints as %s", (text, ms, printed) => {
    expect(parseGoDuration(text)).toBe(ms);
    expect(formatGoDuration(ms)).toBe(printed);
  });

  it.each(["", "1d", "h", "10"])("refuses %j as Go does", (text) => {
    expect(() => parseGoDuration(text)).toThrow(`time: invalid duration "${text}"`);
  });
});

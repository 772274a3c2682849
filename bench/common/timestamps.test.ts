import { describe, expect, it } from "vitest";
import { parseTimestamp, secondsBetween } from "./timestamps.js";

describe("timestamps", () => {
  it("parses RFC 3339 as the API writes it, with a fraction or an offset too", () => {
    expect(parseTimestamp("2026-01-01T00:00:05Z")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5));
    expect(parseTimestamp("2026-01-01T00:00:05.250000Z")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5, 250));
    expect(parseTimestamp("2026-01-01T01:00:05+01:00")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5));
  });

  it("refuses what is missing or not RFC 3339, though Date.parse would take it", () => {
    for (const value of [undefined, null, "", "2026-01-01", "Jan 1 2026", "2026-01-01T00:00:05", "soon"]) {
      expect(parseTimestamp(value)).toBeUndefined();
    }
  });

  it("counts seconds between two timestamps, undefined when either is missing", () => {
    expect(secondsBetween("2026-01-01T00:00:05Z", "2026-01-01T00:00:09Z")).toBe(4);
    expect(secondsBetween("2026-01-01T00:00:05Z", undefined)).toBeUndefined();
  });
});

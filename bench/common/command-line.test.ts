import { describe, expect, it } from "vitest";
import { commandLine, formatDuration, parseDuration, shellQuote } from "./command-line.js";

describe("command line", () => {
  it("quotes for a POSIX shell only what needs it", () => {
    expect(shellQuote("bench-migration")).toBe("bench-migration");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
    expect(commandLine("bench/x/main.ts", ["--during", "sleep 5"])).toBe(
      "npx tsx bench/x/main.ts --during 'sleep 5'",
    );
  });

  it("reads durations with their unit, and writes them back the same way", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("2m")).toBe(120_000);
    expect(parseDuration("1.5s")).toBe(1500);
    for (const bad of ["30", "s", "-1s", "1h", "ten s", ""]) expect(parseDuration(bad)).toBeUndefined();
    expect(formatDuration(30_000)).toBe("30s");
    expect(formatDuration(1500)).toBe("1500ms");
    expect(parseDuration(formatDuration(1500))).toBe(1500);
  });
});

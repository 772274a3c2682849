import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { formatCommandLine, parseOptions } from "./options.js";

const DEFAULTS = { kubeconfig: "/repo/.local/kubeconfig", kubectl: "/cache/bin/kubectl" };

describe("options", () => {
  it("has defaults for everything: a 30 s idle window sampled every second, no command", () => {
    expect(parseOptions([], DEFAULTS)).toEqual({
      windowMs: 30_000,
      intervalMs: 1000,
      during: undefined,
      duringIntervalMs: 200,
      nodesDir: undefined,
      ...DEFAULTS,
    });
  });

  it("takes a window, an interval and a command to run", () => {
    const args = ["--window", "1m", "--interval", "500ms", "--during", "make bench-admission"];
    expect(parseOptions(args, DEFAULTS)).toMatchObject({
      windowMs: 60_000,
      intervalMs: 500,
      during: "make bench-admission",
    });
  });

  it("refuses what it cannot measure, and unknown options", () => {
    for (const args of [
      ["--window", "30"],
      ["--window", "0s"],
      ["--interval", "2s", "--window", "1s"],
      ["--during", " "],
      ["--during-interval", "often"],
    ]) {
      expect(() => parseOptions(args, DEFAULTS)).toThrow(BenchError);
    }
    expect(() => parseOptions(["--pods", "x"], DEFAULTS)).toThrow(/--pods[\s\S]*usage:/);
  });

  it("prints a command line that gives the same options back", () => {
    const options = parseOptions(["--window", "10s", "--during", "sleep 5; echo it's done"], DEFAULTS);
    expect(formatCommandLine(options, DEFAULTS)).toBe(
      "npx tsx bench/components/main.ts --window 10s --interval 1s --during 'sleep 5; echo it'\\''s done' " +
        "--during-interval 200ms",
    );
  });
});

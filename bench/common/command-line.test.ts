import { describe, expect, it } from "vitest";
import { BenchError } from "./bench-error.js";
import {
  commandLine,
  dnsLabel,
  durationOption,
  formatDuration,
  kubectlArgs,
  kubectlOptions,
  parseBenchArgs,
  parseDuration,
  positiveInteger,
  shellQuote,
} from "./command-line.js";

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

  const files = { kubeconfig: "/repo/.local/kubeconfig", kubectl: "/cache/bin/kubectl" };

  it("parses a benchmark's options, refusing unknown ones and missing values with the usage", () => {
    const options = {
      runs: { type: "string", default: "3" },
      keep: { type: "boolean", default: false },
    } as const;
    expect(
      parseBenchArgs(["--runs", "7", "--keep"], { ...options, ...kubectlOptions(files) }, "usage: x"),
    ).toEqual({
      runs: "7",
      keep: true,
      ...files,
    });
    expect(() => parseBenchArgs(["--walk"], options, "usage: x")).toThrow(/--walk[\s\S]*\nusage: x$/);
    expect(() => parseBenchArgs(["--runs"], options, "usage: x")).toThrow(/--runs[\s\S]*\nusage: x$/);
    expect(() => parseBenchArgs(["--keep=yes"], options, "usage: x")).toThrow(BenchError);
    expect(() => parseBenchArgs(["stray"], options, "usage: x")).toThrow(/stray/);
  });

  it("spells out the cluster's files only when they are not the defaults", () => {
    expect(kubectlArgs(files, files)).toEqual([]);
    expect(kubectlArgs({ ...files, kubectl: "/usr/bin/kubectl" }, files)).toEqual([
      "--kubectl",
      "/usr/bin/kubectl",
    ]);
  });

  it("checks values, naming the option in the refusal", () => {
    expect(positiveInteger("count", "100")).toBe(100);
    for (const bad of ["0", "-1", "2.5", "1e3", "ten", ""])
      expect(() => positiveInteger("count", bad)).toThrow(
        `--count wants a positive whole number, not ${bad}`,
      );
    expect(dnsLabel("namespace", "bench-vmi-burst")).toBe("bench-vmi-burst");
    for (const bad of ["Upper", "-x", "x-", "a_b", "a".repeat(64)])
      expect(() => dnsLabel("namespace", bad)).toThrow(`--namespace wants a DNS label, not ${bad}`);
    expect(durationOption("interval", "100ms")).toBe(100);
    expect(() => durationOption("interval", "0s")).toThrow(
      "--interval wants a duration such as 30s or 500ms, not 0s",
    );
    expect(durationOption("interval", "0s", { allowZero: true })).toBe(0);
    expect(() => durationOption("timeout", "15", { example: "15m" })).toThrow(
      "--timeout wants a duration such as 15m, not 15",
    );
  });
});

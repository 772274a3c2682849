import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { formatCommandLine, parseOptions } from "./options.js";

const DEFAULTS = { kubeconfig: "/repo/.local/kubeconfig", kubectl: "/cache/bin/kubectl" };

describe("options", () => {
  it("defaults to upstream's burst: 100 VMIs, 100 ms apart, 15 minutes, paused guests, cleaned up", () => {
    expect(parseOptions([], DEFAULTS)).toEqual({
      count: 100,
      intervalMs: 100,
      timeoutMs: 900_000,
      boot: false,
      keep: false,
      namespace: "bench-vmi-burst",
      ...DEFAULTS,
    });
  });

  it("takes a count, an interval (0 too), a timeout, --boot, --keep and a namespace", () => {
    const args = ["--count", "10", "--interval", "0ms", "--timeout", "90s", "--boot", "--keep"];
    expect(parseOptions([...args, "--namespace", "mine"], DEFAULTS)).toMatchObject({
      count: 10,
      intervalMs: 0,
      timeoutMs: 90_000,
      boot: true,
      keep: true,
      namespace: "mine",
    });
  });

  it("refuses what it cannot use, naming the option", () => {
    const refusals: [string[], string][] = [
      [["--count", "0"], "--count wants a positive whole number, not 0"],
      [["--count", "1.5"], "--count wants a positive whole number, not 1.5"],
      [["--interval", "100"], "--interval wants a duration such as 100ms or 1s, not 100"],
      [["--interval=-1s"], "--interval wants a duration such as 100ms or 1s, not -1s"],
      [["--timeout", "0s"], "--timeout wants a duration such as 15m or 90s, not 0s"],
      [["--timeout", "1h"], "--timeout wants a duration such as 15m or 90s, not 1h"],
      [["--namespace", "Bench"], "--namespace wants a DNS label, not Bench"],
    ];
    for (const [args, message] of refusals) {
      expect(() => parseOptions(args, DEFAULTS)).toThrow(BenchError);
      expect(() => parseOptions(args, DEFAULTS)).toThrow(message);
    }
    expect(() => parseOptions(["--runs", "3"], DEFAULTS)).toThrow(
      /'--runs'[\s\S]*\nusage: npx tsx bench\/vmi-burst/,
    );
    expect(() => parseOptions(["--count"], DEFAULTS)).toThrow(/'--count <value>' argument missing/);
    expect(() => parseOptions(["--boot=no"], DEFAULTS)).toThrow(/--boot/);
  });

  it("prints a command line that gives the same options back", () => {
    const options = parseOptions(["--count", "5", "--boot", "--kubeconfig", "/tmp/my config"], DEFAULTS);
    const line = formatCommandLine(options, DEFAULTS);
    expect(line).toBe(
      "npx tsx bench/vmi-burst/main.ts --count 5 --interval 100ms --timeout 900s --boot " +
        "--namespace bench-vmi-burst --kubeconfig '/tmp/my config'",
    );
    const plain = parseOptions(["--count", "7", "--interval", "1.5s", "--keep", "--timeout", "2m"], DEFAULTS);
    const words = formatCommandLine(plain, DEFAULTS).split(" ").slice(3);
    expect(parseOptions(words, DEFAULTS)).toEqual(plain);
  });
});

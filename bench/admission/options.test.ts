import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { formatCommandLine, parseOptions } from "./options.js";

const DEFAULTS = { kubeconfig: "/repo/.local/kubeconfig", kubectl: "/cache/bin/kubectl" };

describe("options", () => {
  it("has defaults for everything: 200 reviews/s for 20 s to both webhooks", () => {
    expect(parseOptions([], DEFAULTS)).toEqual({
      rate: 200,
      durationMs: 20_000,
      warmupMs: 2_000,
      webhooks: ["validate", "mutate"],
      sockets: 8,
      pod: undefined,
      ...DEFAULTS,
    });
  });

  it("takes a rate, a duration, one webhook, a socket count and a pod", () => {
    const args = ["--rate", "50.5", "--duration", "1500ms", "--warmup", "0s", "--webhook", "mutate"];
    args.push("--sockets", "2", "--pod", "virt-api-x");
    expect(parseOptions(args, DEFAULTS)).toMatchObject({
      rate: 50.5,
      durationMs: 1500,
      warmupMs: 0,
      webhooks: ["mutate"],
      sockets: 2,
      pod: "virt-api-x",
    });
  });

  it("refuses what it cannot measure, and unknown options", () => {
    const bad = [
      ["--rate", "0"],
      ["--rate", "-5"],
      ["--rate", "fast"],
      ["--duration", "20"],
      ["--duration", "0s"],
      ["--warmup", "soon"],
      ["--webhook", "validating"],
      ["--sockets", "0"],
    ];
    for (const args of bad) expect(() => parseOptions(args, DEFAULTS)).toThrow(BenchError);
    expect(() => parseOptions(["--reviews", "9"], DEFAULTS)).toThrow(/--reviews[\s\S]*usage:/);
  });

  it("prints a command line that gives the same options back", () => {
    const options = parseOptions(["--webhook", "validate", "--kubeconfig", "/tmp/my config"], DEFAULTS);
    const line = formatCommandLine(options, DEFAULTS);
    expect(line).toBe(
      "npx tsx bench/admission/main.ts --rate 200 --duration 20s --warmup 2s --webhook validate --sockets 8 " +
        "--kubeconfig '/tmp/my config'",
    );
    const words = line.split(" ").slice(3, -3); // without --kubeconfig and its two quoted words
    expect(parseOptions(words, DEFAULTS)).toEqual({ ...options, kubeconfig: DEFAULTS.kubeconfig });
  });
});

import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { commandLine, parseOptions } from "./options.js";

const DEFAULTS = { kubeconfig: "/repo/.local/kubeconfig", kubectl: "/cache/bin/kubectl" };

describe("options", () => {
  it("has defaults for everything", () => {
    expect(parseOptions([], DEFAULTS)).toEqual({
      vm: "bench-migration",
      namespace: "default",
      runs: 5,
      keep: false,
      ...DEFAULTS,
    });
  });

  it("takes a VM, a run count and --keep", () => {
    expect(parseOptions(["--vm", "mine", "--runs", "12", "--keep"], DEFAULTS)).toMatchObject({
      vm: "mine",
      runs: 12,
      keep: true,
    });
  });

  it("refuses a run count that is not a positive whole number, and unknown options", () => {
    for (const runs of ["0", "-1", "2.5", "many"]) {
      expect(() => parseOptions(["--runs", runs], DEFAULTS)).toThrow(BenchError);
    }
    expect(() => parseOptions(["--vmi", "x"], DEFAULTS)).toThrow(/--vmi[\s\S]*usage:/);
  });

  it("prints a command line that gives the same options back", () => {
    const options = parseOptions(["--runs", "3", "--keep", "--kubeconfig", "/tmp/my config"], DEFAULTS);
    const line = commandLine(options, DEFAULTS);
    expect(line).toBe(
      "npx tsx bench/migration/main.ts --vm bench-migration --namespace default --runs 3 --keep " +
        "--kubeconfig '/tmp/my config'",
    );
  });
});

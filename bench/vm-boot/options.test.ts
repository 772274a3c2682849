import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { formatCommandLine, parseOptions } from "./options.js";

const DEFAULTS = {
  image: "/cache/kubevirt-ts/images/test-guest",
  kubeconfig: "/repo/.local/kubeconfig",
  kubectl: "/cache/bin/kubectl",
};

describe("options", () => {
  it("has defaults for everything: three runs in namespace bench-vm-boot", () => {
    expect(parseOptions([], DEFAULTS)).toEqual({
      runs: 3,
      namespace: "bench-vm-boot",
      vm: "bench-vm-boot",
      ...DEFAULTS,
    });
  });

  it("takes a run count, names and an image folder", () => {
    const args = ["--runs", "5", "--namespace", "mine", "--vm", "boot-me", "--image", "/tmp/guest"];
    expect(parseOptions(args, DEFAULTS)).toMatchObject({
      runs: 5,
      namespace: "mine",
      vm: "boot-me",
      image: "/tmp/guest",
    });
  });

  it("refuses what it cannot use, and unknown options", () => {
    for (const args of [
      ["--runs", "0"],
      ["--runs", "two"],
      ["--vm", "Not_A_Name"],
      ["--namespace", "-x"],
    ]) {
      expect(() => parseOptions(args, DEFAULTS)).toThrow(BenchError);
    }
    expect(() => parseOptions(["--keep"], DEFAULTS)).toThrow(/--keep[\s\S]*usage:/);
  });

  it("prints a command line that gives the same options back", () => {
    const options = parseOptions(["--runs", "2", "--image", "/tmp/my guest"], DEFAULTS);
    expect(formatCommandLine(options, DEFAULTS)).toBe(
      "npx tsx bench/vm-boot/main.ts --runs 2 --namespace bench-vm-boot --vm bench-vm-boot --image '/tmp/my guest'",
    );
  });
});

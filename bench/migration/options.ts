import { parseArgs } from "node:util";
import { BenchError } from "../common/bench-error.js";
import { shellQuote } from "../common/command-line.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/migration/main.ts [--vm bench-migration] [--namespace default] [--runs 5] [--keep] " +
  "[--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface MigrationBenchOptions {
  vm: string;
  namespace: string;
  runs: number;
  /** Leave the VM (and its migration objects) in place afterwards. */
  keep: boolean;
  kubeconfig: string;
  kubectl: string;
}

export interface Defaults {
  kubeconfig: string;
  kubectl: string;
}

export function parseOptions(args: readonly string[], defaults: Defaults): MigrationBenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        vm: { type: "string", default: "bench-migration" },
        namespace: { type: "string", default: "default" },
        runs: { type: "string", default: "5" },
        keep: { type: "boolean", default: false },
        kubeconfig: { type: "string", default: defaults.kubeconfig },
        kubectl: { type: "string", default: defaults.kubectl },
      },
    }));
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${USAGE}`);
  }
  if (!/^[1-9]\d*$/.test(values.runs))
    throw new BenchError(`--runs wants a positive whole number, not ${values.runs}`);
  return { ...values, runs: Number(values.runs) };
}

/** Every choice spelled out, but the cluster's files when they are the defaults. */
export function commandLine(options: MigrationBenchOptions, defaults: Defaults): string {
  const words = ["npx", "tsx", "bench/migration/main.ts"];
  words.push("--vm", options.vm, "--namespace", options.namespace, "--runs", String(options.runs));
  if (options.keep) words.push("--keep");
  if (options.kubeconfig !== defaults.kubeconfig) words.push("--kubeconfig", options.kubeconfig);
  if (options.kubectl !== defaults.kubectl) words.push("--kubectl", options.kubectl);
  return words.map(shellQuote).join(" ");
}

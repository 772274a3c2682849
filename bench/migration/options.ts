import {
  commandLine as benchCommandLine,
  kubectlArgs,
  kubectlOptions,
  parseBenchArgs,
  positiveInteger,
} from "../common/command-line.js";
import type { KubectlOptions } from "../common/kubectl.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/migration/main.ts [--vm bench-migration] [--namespace default] [--runs 5] [--keep] " +
  "[--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface MigrationBenchOptions extends KubectlOptions {
  vm: string;
  namespace: string;
  runs: number;
  /** Leave the VM (and its migration objects) in place afterwards. */
  keep: boolean;
}

export type Defaults = KubectlOptions;

export function parseOptions(args: readonly string[], defaults: Defaults): MigrationBenchOptions {
  const values = parseBenchArgs(
    args,
    {
      vm: { type: "string", default: "bench-migration" },
      namespace: { type: "string", default: "default" },
      runs: { type: "string", default: "5" },
      keep: { type: "boolean", default: false },
      ...kubectlOptions(defaults),
    },
    USAGE,
  );
  return { ...values, runs: positiveInteger("runs", values.runs) };
}

/** Every choice spelled out, but the cluster's files when they are the defaults. */
export function commandLine(options: MigrationBenchOptions, defaults: Defaults): string {
  const args = ["--vm", options.vm, "--namespace", options.namespace, "--runs", String(options.runs)];
  if (options.keep) args.push("--keep");
  args.push(...kubectlArgs(options, defaults));
  return benchCommandLine("bench/migration/main.ts", args);
}

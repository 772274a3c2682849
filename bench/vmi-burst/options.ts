import {
  commandLine,
  dnsLabel,
  durationOption,
  formatDuration,
  kubectlArgs,
  kubectlOptions,
  parseBenchArgs,
  positiveInteger,
} from "../common/command-line.js";
import type { KubectlOptions } from "../common/kubectl.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/vmi-burst/main.ts [--count 100] [--interval 100ms] [--timeout 15m] [--boot] [--keep] " +
  "[--namespace bench-vmi-burst] [--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface VmiBurstOptions extends KubectlOptions {
  /** How many VMIs the burst creates. */
  count: number;
  /** Between the starts of two creations (none waits for the one before); 0: all at once. */
  intervalMs: number;
  /** From the first creation until every VMI must be Running; the ones that are not by then are named. */
  timeoutMs: number;
  /** The guests really boot (TCG); without it the VMIs start paused (spec.startStrategy: Paused). */
  boot: boolean;
  /** Leave the VMIs and the namespace afterwards. */
  keep: boolean;
  /** The benchmark's own namespace: created if missing, deleted afterwards (unless --keep). */
  namespace: string;
}

export type Defaults = KubectlOptions;

export function parseOptions(args: readonly string[], defaults: Defaults): VmiBurstOptions {
  const values = parseBenchArgs(
    args,
    {
      count: { type: "string", default: "100" },
      interval: { type: "string", default: "100ms" },
      timeout: { type: "string", default: "15m" },
      boot: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      namespace: { type: "string", default: "bench-vmi-burst" },
      ...kubectlOptions(defaults),
    },
    USAGE,
  );
  return {
    count: positiveInteger("count", values.count),
    intervalMs: durationOption("interval", values.interval, { allowZero: true, example: "100ms or 1s" }),
    timeoutMs: durationOption("timeout", values.timeout, { example: "15m or 90s" }),
    boot: values.boot,
    keep: values.keep,
    namespace: dnsLabel("namespace", values.namespace),
    kubeconfig: values.kubeconfig,
    kubectl: values.kubectl,
  };
}

/** Every choice spelled out, but the cluster's files when they are the defaults. */
export function formatCommandLine(options: VmiBurstOptions, defaults: Defaults): string {
  const args = ["--count", String(options.count), "--interval", formatDuration(options.intervalMs)];
  args.push("--timeout", formatDuration(options.timeoutMs));
  if (options.boot) args.push("--boot");
  if (options.keep) args.push("--keep");
  args.push("--namespace", options.namespace, ...kubectlArgs(options, defaults));
  return commandLine("bench/vmi-burst/main.ts", args);
}

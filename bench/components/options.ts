import { parseArgs } from "node:util";
import { BenchError } from "../common/bench-error.js";
import { commandLine, formatDuration, parseDuration } from "../common/command-line.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/components/main.ts [--window 30s] [--interval 1s] [--during <command>] " +
  "[--during-interval 200ms] [--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>] " +
  "[--nodes-dir .local/nodes]";

export interface ComponentsBenchOptions {
  /** The idle window: CPU time is counted over it, memory sampled every `intervalMs`. */
  windowMs: number;
  intervalMs: number;
  /** A shell command run after the idle window, with the components sampled while it runs. */
  during: string | undefined;
  duringIntervalMs: number;
  kubeconfig: string;
  kubectl: string;
  /** The node agents' state directories; default beside the kubeconfig. */
  nodesDir: string | undefined;
}

export interface Defaults {
  kubeconfig: string;
  kubectl: string;
}

const duration = (name: string, text: string): number => {
  const ms = parseDuration(text);
  if (ms === undefined || ms === 0)
    throw new BenchError(`--${name} wants a duration such as 30s or 500ms, not ${text}`);
  return ms;
};

export function parseOptions(args: readonly string[], defaults: Defaults): ComponentsBenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        window: { type: "string", default: "30s" },
        interval: { type: "string", default: "1s" },
        during: { type: "string" },
        "during-interval": { type: "string", default: "200ms" },
        kubeconfig: { type: "string", default: defaults.kubeconfig },
        kubectl: { type: "string", default: defaults.kubectl },
        "nodes-dir": { type: "string" },
      },
    }));
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${USAGE}`);
  }
  const windowMs = duration("window", values.window);
  const intervalMs = duration("interval", values.interval);
  if (intervalMs > windowMs)
    throw new BenchError(`--interval ${values.interval} is longer than --window ${values.window}`);
  if (values.during !== undefined && values.during.trim() === "")
    throw new BenchError("--during wants a command");
  return {
    windowMs,
    intervalMs,
    during: values.during,
    duringIntervalMs: duration("during-interval", values["during-interval"]),
    kubeconfig: values.kubeconfig,
    kubectl: values.kubectl,
    nodesDir: values["nodes-dir"],
  };
}

/** Every choice spelled out, but the cluster's files when they are the defaults. */
export function formatCommandLine(options: ComponentsBenchOptions, defaults: Defaults): string {
  const args = [
    "--window",
    formatDuration(options.windowMs),
    "--interval",
    formatDuration(options.intervalMs),
  ];
  if (options.during !== undefined) {
    args.push("--during", options.during, "--during-interval", formatDuration(options.duringIntervalMs));
  }
  if (options.kubeconfig !== defaults.kubeconfig) args.push("--kubeconfig", options.kubeconfig);
  if (options.kubectl !== defaults.kubectl) args.push("--kubectl", options.kubectl);
  if (options.nodesDir !== undefined) args.push("--nodes-dir", options.nodesDir);
  return commandLine("bench/components/main.ts", args);
}

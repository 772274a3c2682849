import { parseArgs } from "node:util";
import { BenchError } from "../common/bench-error.js";
import { commandLine, formatDuration, parseDuration } from "../common/command-line.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const WEBHOOKS = ["validate", "mutate"] as const;
export type Webhook = (typeof WEBHOOKS)[number];

export const USAGE =
  "usage: npx tsx bench/admission/main.ts [--rate 200] [--duration 20s] [--warmup 2s] " +
  "[--webhook validate|mutate|both] [--sockets 8] [--pod <a virt-api pod>] " +
  "[--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface AdmissionBenchOptions {
  /** Reviews per second, sent on schedule whatever the answers. */
  rate: number;
  durationMs: number;
  /** Sent before the measured part at the same rate, on the same sockets, and not counted. */
  warmupMs: number;
  /** The webhooks measured, one after the other, each at `rate` for `durationMs`. */
  webhooks: Webhook[];
  /** The keep-alive agent's socket limit (Go's transport, which the apiserver uses, keeps several). */
  sockets: number;
  /** The virt-api pod to send to; undefined: the first Ready one by name. */
  pod: string | undefined;
  kubeconfig: string;
  kubectl: string;
}

export interface Defaults {
  kubeconfig: string;
  kubectl: string;
}

const positiveNumber = (name: string, text: string): number => {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0))
    throw new BenchError(`--${name} wants a positive number, not ${text}`);
  return value;
};

const duration = (name: string, text: string, allowZero = false): number => {
  const ms = parseDuration(text);
  if (ms === undefined || (!allowZero && ms === 0))
    throw new BenchError(`--${name} wants a duration such as 20s or 500ms, not ${text}`);
  return ms;
};

export function parseOptions(args: readonly string[], defaults: Defaults): AdmissionBenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        rate: { type: "string", default: "200" },
        duration: { type: "string", default: "20s" },
        warmup: { type: "string", default: "2s" },
        webhook: { type: "string", default: "both" },
        sockets: { type: "string", default: "8" },
        pod: { type: "string" },
        kubeconfig: { type: "string", default: defaults.kubeconfig },
        kubectl: { type: "string", default: defaults.kubectl },
      },
    }));
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${USAGE}`);
  }
  const webhook = values.webhook;
  if (webhook !== "both" && !(WEBHOOKS as readonly string[]).includes(webhook))
    throw new BenchError(`--webhook is validate, mutate or both, not ${webhook}`);
  if (!/^[1-9]\d*$/.test(values.sockets))
    throw new BenchError(`--sockets wants a positive whole number, not ${values.sockets}`);
  return {
    rate: positiveNumber("rate", values.rate),
    durationMs: duration("duration", values.duration),
    warmupMs: duration("warmup", values.warmup, true),
    webhooks: webhook === "both" ? [...WEBHOOKS] : [webhook as Webhook],
    sockets: Number(values.sockets),
    pod: values.pod,
    kubeconfig: values.kubeconfig,
    kubectl: values.kubectl,
  };
}

/** Every choice spelled out, but the cluster's files when they are the defaults. */
export function formatCommandLine(options: AdmissionBenchOptions, defaults: Defaults): string {
  const webhook = options.webhooks.length === WEBHOOKS.length ? "both" : options.webhooks[0]!;
  const args = ["--rate", String(options.rate), "--duration", formatDuration(options.durationMs)];
  args.push("--warmup", formatDuration(options.warmupMs), "--webhook", webhook);
  args.push("--sockets", String(options.sockets));
  if (options.pod !== undefined) args.push("--pod", options.pod);
  if (options.kubeconfig !== defaults.kubeconfig) args.push("--kubeconfig", options.kubeconfig);
  if (options.kubectl !== defaults.kubectl) args.push("--kubectl", options.kubectl);
  return commandLine("bench/admission/main.ts", args);
}

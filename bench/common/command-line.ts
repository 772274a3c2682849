import { parseArgs, type ParseArgsConfig } from "node:util";
import { BenchError } from "./bench-error.js";
import type { KubectlOptions } from "./kubectl.js";

// The line each benchmark prints with its figures, which gives the same run again when pasted into a
// POSIX shell, and the durations its options take.

/** A word as a POSIX shell reads it back. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `npx tsx <script> <args...>`, each word quoted as needed. */
export function commandLine(script: string, args: readonly string[]): string {
  return ["npx", "tsx", script, ...args].map(shellQuote).join(" ");
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** "30s", "500ms", "2m" or "1.5s" in milliseconds; undefined for anything else (a bare number too). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** Milliseconds back as parseDuration reads them: whole seconds as "30s", the rest as "1500ms". */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

// Parsing a benchmark's options: node:util's parseArgs, with every refusal a BenchError that names the
// option and ends with the benchmark's usage line, and the checks several benchmarks make of the values.

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** The values parseArgs gives for `options`: strings and booleans, typed after their configuration. */
export type BenchArgs<O extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O }>
>["values"];

/** parseArgs over `options` (no positionals); an unknown option, or one missing its value, names itself and the usage. */
export function parseBenchArgs<const O extends OptionsConfig>(
  args: readonly string[],
  options: O,
  usage: string,
): BenchArgs<O> {
  try {
    return parseArgs({ args: [...args], options }).values;
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${usage}`);
  }
}

/** --kubeconfig and --kubectl, which every benchmark that talks to the cluster takes. */
export function kubectlOptions(defaults: KubectlOptions) {
  return {
    kubeconfig: { type: "string", default: defaults.kubeconfig },
    kubectl: { type: "string", default: defaults.kubectl },
  } as const;
}

/** The words that give `options`' cluster files back: none for the defaults. */
export function kubectlArgs(options: KubectlOptions, defaults: KubectlOptions): string[] {
  const args: string[] = [];
  if (options.kubeconfig !== defaults.kubeconfig) args.push("--kubeconfig", options.kubeconfig);
  if (options.kubectl !== defaults.kubectl) args.push("--kubectl", options.kubectl);
  return args;
}

export function positiveInteger(option: string, text: string): number {
  if (!/^[1-9]\d*$/.test(text))
    throw new BenchError(`--${option} wants a positive whole number, not ${text}`);
  return Number(text);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A namespace's or an object's name that is also a DNS label (RFC 1123). */
export function dnsLabel(option: string, text: string): string {
  if (!DNS_LABEL.test(text)) throw new BenchError(`--${option} wants a DNS label, not ${text}`);
  return text;
}

/** A duration as parseDuration reads it, in ms; zero only when `allowZero`. `example` goes into the refusal. */
export function durationOption(
  option: string,
  text: string,
  { allowZero = false, example = "30s or 500ms" }: { allowZero?: boolean; example?: string } = {},
): number {
  const ms = parseDuration(text);
  if (ms === undefined || (!allowZero && ms === 0))
    throw new BenchError(`--${option} wants a duration such as ${example}, not ${text}`);
  return ms;
}

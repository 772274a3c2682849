import { invalidFlagValue, parseGoBool } from "../util/flags.js";
// A small command-line parser with cobra/pflag's conventions: `--name value`, `--name=value`,
// `-n value`, `-nvalue`, booleans as `--force` or `--force=false` (never consuming the next word),
// flags before or after positionals, and `--` ending the flags. Errors carry pflag's wording.

export type FlagValue = boolean | number | string | readonly string[];

export interface FlagSpec {
  name: string;
  short?: string;
  /** "stringArray": every occurrence adds one value, taken as is (pflag's StringArray). */
  kind: "bool" | "int" | "string" | "stringArray";
  usage: string;
  defaultValue: FlagValue;
}

export interface ParsedFlags {
  positionals: string[];
  /** Flags given on the command line, by long name. */
  changed: Set<string>;
  bool(name: string): boolean;
  int(name: string): number;
  string(name: string): string;
  strings(name: string): string[];
}

/** A mistake in how the command was invoked: printed with a hint to read the usage. */
export class UsageError extends Error {}

/** The help flag every command has, as cobra adds it. */
export const helpFlag = (command: string): FlagSpec => ({
  name: "help",
  short: "h",
  kind: "bool",
  usage: `help for ${command}`,
  defaultValue: false,
});

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const values = new Map<string, FlagValue>(specs.map((spec) => [spec.name, spec.defaultValue]));
  const changed = new Set<string>();
  const positionals: string[] = [];
  const set = (spec: FlagSpec, shown: string, raw: string): void => {
    // The first occurrence replaces the default, later ones add to it.
    const before = values.get(spec.name);
    const value =
      spec.kind === "stringArray"
        ? [...(changed.has(spec.name) && Array.isArray(before) ? before : []), raw]
        : convert(spec, shown, raw);
    values.set(spec.name, value);
    changed.add(spec.name);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const [name = "", inline] = splitOnce(arg.slice(2), "=");
      const spec = specs.find((s) => s.name === name);
      if (!spec) throw new UsageError(`unknown flag: --${name}`);
      if (inline !== undefined) set(spec, `--${name}`, inline);
      else if (spec.kind === "bool") set(spec, `--${name}`, "true");
      else if (i + 1 < argv.length) set(spec, `--${name}`, argv[++i] ?? "");
      else throw new UsageError(`flag needs an argument: --${name}`);
    } else if (arg.startsWith("-") && arg.length > 1) {
      const letter = arg.charAt(1);
      const spec = specs.find((s) => s.short === letter);
      if (!spec) throw new UsageError(`unknown shorthand flag: '${letter}' in ${arg}`);
      const rest = arg.slice(2).replace(/^=/, "");
      const shown = `-${letter}, --${spec.name}`;
      if (rest !== "") set(spec, shown, rest);
      else if (spec.kind === "bool") set(spec, shown, "true");
      else if (i + 1 < argv.length) set(spec, shown, argv[++i] ?? "");
      else throw new UsageError(`flag needs an argument: '${letter}' in ${arg}`);
    } else {
      positionals.push(arg);
    }
  }
  const typed = <T extends FlagValue>(name: string, kind: string): T => {
    const value = values.get(name);
    if (value === undefined || typeof value !== kind) throw new Error(`no ${kind} flag "${name}"`);
    return value as T;
  };
  return {
    positionals,
    changed,
    bool: (name) => typed<boolean>(name, "boolean"),
    int: (name) => typed<number>(name, "number"),
    string: (name) => typed<string>(name, "string"),
    strings: (name) => {
      const value = values.get(name);
      if (!Array.isArray(value)) throw new Error(`no string array flag "${name}"`);
      return [...(value as string[])];
    },
  };
}

function convert(spec: FlagSpec, shown: string, raw: string): FlagValue {
  const invalid = (parser: string) => new UsageError(invalidFlagValue(shown, raw, parser));
  switch (spec.kind) {
    case "bool": {
      const value = parseGoBool(raw);
      if (value === undefined) throw invalid("strconv.ParseBool");
      return value;
    }
    case "int": {
      if (!/^[+-]?\d+$/.test(raw)) throw invalid("strconv.ParseInt");
      return Number.parseInt(raw, 10);
    }
    case "string":
    case "stringArray":
      return raw;
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** The first word that is not a flag: the subcommand, as cobra finds it before parsing flags. */
export function findCommandName(argv: readonly string[], globalSpecs: readonly FlagSpec[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") return -1;
    if (!arg.startsWith("-") || arg === "-") return i;
    if (arg.includes("=")) continue;
    const spec = arg.startsWith("--")
      ? globalSpecs.find((s) => s.name === arg.slice(2))
      : arg.length === 2
        ? globalSpecs.find((s) => s.short === arg.charAt(1))
        : undefined;
    if (spec && spec.kind !== "bool") i++;
  }
  return -1;
}

/** Flag usage lines in pflag's layout: sorted, shorthand column, type name, default when not zero. */
export function flagUsages(specs: readonly FlagSpec[]): string {
  const rows = [...specs]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((spec) => {
      const names = spec.short ? `  -${spec.short}, --${spec.name}` : `      --${spec.name}`;
      const type = spec.kind === "bool" ? "" : ` ${spec.kind}`;
      const hasDefault =
        spec.kind === "int" ? spec.defaultValue !== 0 : spec.kind === "string" && spec.defaultValue !== "";
      const shownDefault =
        spec.kind === "string" ? `"${String(spec.defaultValue)}"` : String(spec.defaultValue);
      return { left: names + type, right: spec.usage + (hasDefault ? ` (default ${shownDefault})` : "") };
    });
  const width = Math.max(0, ...rows.map((row) => row.left.length));
  return rows.map((row) => `${row.left.padEnd(width)}   ${row.right}`).join("\n");
}

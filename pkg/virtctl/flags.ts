import { goQuote } from "../api/field.js";
import { CSVParseError, readCSVRecord } from "../util/csv-record.js";
import { invalidFlagValue, parseGoBool, parseGoUint32 } from "../util/flags.js";
// A small command-line parser with cobra/pflag's conventions: `--name value`, `--name=value`,
// `-n value`, `-nvalue`, booleans as `--force` or `--force=false` (never consuming the next word),
// flags before or after positionals, and `--` ending the flags. Errors carry pflag's wording.

export type FlagValue = boolean | number | string | readonly string[] | Readonly<Record<string, string>>;

/**
 * pflag's value types. A stringArray flag collects each occurrence as given; a stringSlice flag
 * splits each occurrence as one CSV record. Both start over from their default on the first one. A
 * stringToString flag reads `key=value` pairs (one CSV record) into a map, later occurrences merged in.
 */
export type FlagKind =
  "bool" | "int" | "uint32" | "string" | "stringArray" | "stringSlice" | "stringToString";

export interface FlagSpec {
  name: string;
  short?: string;
  kind: FlagKind;
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
  /** A stringArray or stringSlice flag's values. */
  strings(name: string): readonly string[];
  /** A stringToString flag's map. */
  stringMap(name: string): Readonly<Record<string, string>>;
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
    const value = convert(spec, shown, raw);
    const previous = values.get(spec.name);
    const again = changed.has(spec.name);
    if (spec.kind === "stringToString") {
      values.set(
        spec.name,
        again ? { ...(previous as Record<string, string>), ...(value as object) } : value,
      );
    } else {
      const appends = Array.isArray(value) && Array.isArray(previous) && again;
      values.set(spec.name, appends ? [...(previous as string[]), ...value] : value);
    }
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
    const actual = Array.isArray(value) ? "array" : typeof value;
    if (value === undefined || actual !== kind) throw new Error(`no ${kind} flag "${name}"`);
    return value as T;
  };
  return {
    positionals,
    changed,
    bool: (name) => typed<boolean>(name, "boolean"),
    int: (name) => typed<number>(name, "number"),
    string: (name) => typed<string>(name, "string"),
    strings: (name) => typed<readonly string[]>(name, "array"),
    stringMap: (name) => typed<Readonly<Record<string, string>>>(name, "object"),
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
    case "uint32": {
      const value = parseGoUint32(raw);
      if (typeof value === "number") return value;
      throw new UsageError(
        `invalid argument ${goQuote(raw)} for "${shown}" flag: strconv.ParseUint: parsing ${goQuote(raw)}: ${value}`,
      );
    }
    case "string":
      return raw;
    case "stringArray":
      return [raw];
    case "stringSlice":
      return splitSlice(shown, raw);
    case "stringToString":
      return splitPairs(shown, raw);
  }
}

/**
 * pflag's stringToString Set: no `=` at all is refused, exactly one is a single pair (surrounding quotes
 * trimmed), more are one CSV record of pairs, each split at its first `=`.
 */
function splitPairs(shown: string, raw: string): Record<string, string> {
  const refuse = (reason: string) =>
    new UsageError(`invalid argument ${goQuote(raw)} for "${shown}" flag: ${reason}`);
  const equals = raw.split("=").length - 1;
  if (equals === 0) throw refuse(`${raw} must be formatted as key=value`);
  let pairs: string[];
  if (equals === 1) {
    pairs = [raw.replace(/^"+|"+$/g, "")];
  } else {
    try {
      pairs = readCSVRecord(raw);
    } catch (error) {
      if (!(error instanceof CSVParseError)) throw error;
      throw refuse(error.message);
    }
  }
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at < 0) throw refuse(`${pair} must be formatted as key=value`);
    map[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return map;
}

/** pflag's readAsCSV: an empty value is no element, anything else one CSV record. */
function splitSlice(shown: string, raw: string): string[] {
  if (raw === "") return [];
  try {
    return readCSVRecord(raw);
  } catch (error) {
    if (!(error instanceof CSVParseError)) throw error;
    throw new UsageError(`invalid argument ${goQuote(raw)} for "${shown}" flag: ${error.message}`);
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

const TYPE_NAMES: Record<FlagKind, string> = {
  bool: "",
  int: " int",
  uint32: " uint32",
  string: " string",
  stringArray: " stringArray",
  stringSlice: " strings",
  stringToString: " stringToString",
};

/** encoding/csv's Writer: a field is quoted when it holds a quote, a comma, a line break or leads with a space. */
const csvField = (field: string): string =>
  /[",\r\n]/.test(field) || field.startsWith(" ") ? `"${field.replaceAll('"', '""')}"` : field;

/** What pflag prints after the usage unless the default is the type's zero value. */
function shownDefault(spec: FlagSpec): string | undefined {
  const value = spec.defaultValue;
  if (Array.isArray(value)) return value.length > 0 ? `[${value.join(",")}]` : undefined;
  // pflag prints a stringToString default even when empty: "[]" is no zero value to it.
  if (typeof value === "object") {
    const pairs = Object.keys(value)
      .sort()
      .map((key) => `${key}=${(value as Record<string, string>)[key] ?? ""}`);
    return `[${pairs.map(csvField).join(",")}]`;
  }
  if (value === false || value === 0 || value === "") return undefined;
  return typeof value === "string" ? `"${value}"` : String(value);
}

/**
 * Flag usage lines in pflag's layout: sorted unless `sorted` is false (cobra's SortFlags), shorthand
 * column, type name, default when not zero, continuation lines of a usage aligned under its start.
 */
export function flagUsages(specs: readonly FlagSpec[], sorted = true): string {
  const ordered = sorted ? [...specs].sort((a, b) => a.name.localeCompare(b.name)) : specs;
  const rows = ordered.map((spec) => {
    const names = spec.short ? `  -${spec.short}, --${spec.name}` : `      --${spec.name}`;
    const shown = shownDefault(spec);
    return { left: names + TYPE_NAMES[spec.kind], right: spec.usage + (shown ? ` (default ${shown})` : "") };
  });
  const width = Math.max(0, ...rows.map((row) => row.left.length));
  const indent = " ".repeat(width + 3);
  return rows
    .map((row) => `${row.left.padEnd(width)}   ${row.right.replaceAll("\n", `\n${indent}`)}`)
    .join("\n");
}

/**
 * cobra's MarkFlagsMutuallyExclusive check: the first group (in cobra's order, by the names joined)
 * with more than one flag given is refused, naming the given ones sorted.
 */
export function checkExclusiveFlagGroups(
  groups: readonly (readonly string[])[],
  changed: ReadonlySet<string>,
): void {
  const byKey = [...groups].sort((a, b) => compareBytes(a.join(" "), b.join(" ")));
  for (const group of byKey) {
    const given = group.filter((name) => changed.has(name)).sort(compareBytes);
    if (given.length > 1) {
      throw new Error(
        `if any flags in the group [${group.join(" ")}] are set none of the others can be; [${given.join(" ")}] were all set`,
      );
    }
  }
}

/** cobra's ValidateRequiredFlags: every required flag not given, by name in pflag's sorted order. */
export function checkRequiredFlags(required: readonly string[], changed: ReadonlySet<string>): void {
  const missing = required.filter((name) => !changed.has(name)).sort(compareBytes);
  if (missing.length > 0) throw new Error(`required flag(s) "${missing.join('", "')}" not set`);
}

/** Go's string order. */
const compareBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

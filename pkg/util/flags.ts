// Flag values as spf13/pflag parses them for every upstream component (and virtctl): Go's strconv
// spellings, and pflag's wording when a value does not parse.
import { parseGoDuration } from "./go-duration.js";

/** pflag's error for a value its parser refused: `invalid argument "x" for "--f" flag: strconv...`. */
export function invalidFlagValue(shown: string, raw: string, parser: string): string {
  return `invalid argument "${raw}" for "${shown}" flag: ${parser}: parsing "${raw}": invalid syntax`;
}

const BASE_PREFIXES: Readonly<Record<string, number | undefined>> = { b: 2, o: 8, x: 16 };

/**
 * strconv.ParseUint(raw, 0, 32), as pflag's uint32 flags read their value: base prefixes 0x, 0o, 0b
 * and a leading 0 for octal, underscores between digits. The value, or Go's reason for refusing it.
 */
export function parseGoUint32(raw: string): number | "invalid syntax" | "value out of range" {
  let digits = raw;
  let base = 10;
  if (digits.startsWith("0")) {
    const prefixed = digits.length >= 3 ? BASE_PREFIXES[digits.charAt(1).toLowerCase()] : undefined;
    base = prefixed ?? 8;
    digits = digits.slice(prefixed ? 2 : 1);
  }
  if (raw === "") return "invalid syntax";
  let value = 0;
  let underscores = false;
  for (const character of digits) {
    if (character === "_") {
      underscores = true;
      continue;
    }
    const digit = Number.parseInt(character, 36);
    if (Number.isNaN(digit) || digit >= base) return "invalid syntax";
    value = value * base + digit;
    // Go stops at the first overflow, so an overflow before a bad character is what it reports.
    if (value > 0xffffffff) return "value out of range";
  }
  if (underscores && !underscoresOK(raw)) return "invalid syntax";
  return value;
}

/** strconv's underscoreOK: each underscore sits between digits (or after a base prefix). */
function underscoresOK(text: string): boolean {
  let saw = "^";
  let i = 0;
  const hex = /^0x/i.test(text);
  if (/^0[box]/i.test(text)) {
    i = 2;
    saw = "0";
  }
  for (; i < text.length; i++) {
    const character = text.charAt(i);
    if (/[0-9]/.test(character) || (hex && /[a-f]/i.test(character))) saw = "0";
    else if (character === "_") {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

/** strconv.ParseBool's spellings; undefined when the text is none of them. */
export function parseGoBool(raw: string): boolean | undefined {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(raw)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(raw)) return false;
  return undefined;
}

/** An int flag's value (`--flag`), or `fallback` when the flag was not given. */
export function intFlag(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[+-]?\d+$/.test(text)) throw new Error(invalidFlagValue(`--${flag}`, text, "strconv.ParseInt"));
  return Number.parseInt(text, 10);
}

/** A bool flag given a value (`--flag=false`), or `fallback` when the flag was not given. */
export function boolFlag(flag: string, text: string | undefined, fallback: boolean): boolean {
  if (text === undefined) return fallback;
  const value = parseGoBool(text);
  if (value === undefined) throw new Error(invalidFlagValue(`--${flag}`, text, "strconv.ParseBool"));
  return value;
}

/**
 * A duration flag (`--flag 90s`, Go's time.ParseDuration spelling) in milliseconds, or `fallbackMs` when
 * the flag was not given. Zero and negative values are refused: these flags are periods and timeouts.
 */
export function positiveDurationFlag(flag: string, text: string | undefined, fallbackMs: number): number {
  if (text === undefined) return fallbackMs;
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (err) {
    throw new Error(`invalid argument "${text}" for "--${flag}" flag: ${(err as Error).message}`);
  }
  if (ms <= 0)
    throw new Error(`invalid argument "${text}" for "--${flag}" flag: must be a positive duration`);
  return ms;
}

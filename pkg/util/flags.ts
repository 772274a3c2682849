// Flag values as spf13/pflag parses them for every upstream component (and virtctl): Go's strconv
// spellings, and pflag's wording when a value does not parse.

/** pflag's error for a value its parser refused: `invalid argument "x" for "--f" flag: strconv...`. */
export function invalidFlagValue(shown: string, raw: string, parser: string): string {
  return `invalid argument "${raw}" for "${shown}" flag: ${parser}: parsing "${raw}": invalid syntax`;
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

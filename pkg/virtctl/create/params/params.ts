// Flags carrying several parameters, `--flag key:value,key:value` (upstream
// pkg/virtctl/create/params). Upstream reads the parameters into tagged Go structs by reflection;
// here a parameter table names each parameter and its type, in the struct's field order, which is
// the order `supported` lists them and `mapParams` checks their values.
import { FORMAT_MESSAGE, Quantity, QuantityParseError } from "../../../defaults/quantity.js";

/** The Go field types upstream supports: string, *uint, *resource.Quantity and []string. */
export type ParamKind = "string" | "uint" | "quantity" | "strings";

export type ParamTable = Readonly<Record<string, ParamKind>>;

type ValueOf<K extends ParamKind> = K extends "string"
  ? string
  : K extends "uint"
    ? number | undefined
    : K extends "quantity"
      ? Quantity | undefined
      : string[] | undefined;

/** The parsed parameters: a string is "" when not given (Go's zero value), the others undefined. */
export type Params<T extends ParamTable> = { [K in keyof T]: ValueOf<T[K]> };

const TYPE_NAMES: Record<ParamKind, string> = {
  string: "string",
  uint: "uint",
  quantity: "resource.Quantity",
  strings: "[]string",
};

/** A required parameter that was not given (upstream's NotFoundError). */
export class NotFoundError extends Error {
  constructor(readonly param: string) {
    super(`${param} must be specified`);
  }
}

/** How every refusal about a flag's value reads: `failed to parse "--flag" flag: <why>`. */
export function flagError(flagName: string, message: string): Error {
  return new Error(`failed to parse "--${flagName}" flag: ${message}`);
}

/** The parameters a table accepts, for the flag's usage text: `name:string,bootorder:uint`. */
export function supported(table: ParamTable): string {
  return Object.entries(table)
    .map(([param, kind]) => `${param}:${TYPE_NAMES[kind]}`)
    .join(",");
}

/** Reads `paramsText` against `table`; any unknown parameter is refused, as upstream's Map does. */
export function mapParams<T extends ParamTable>(flagName: string, paramsText: string, table: T): Params<T> {
  const given = wrapped(flagName, () => split(paramsText));
  const values = wrapped(flagName, () => apply(given, table));
  const unknown = [...given].filter(([param]) => !(param in table));
  if (unknown.length > 0) {
    const listed = unknown.map(([param, value]) => `${param}:${value}`).join(",");
    throw flagError(flagName, `unknown param(s): ${listed}`);
  }
  return values;
}

/** One parameter's raw value; NotFoundError when it is absent. */
export function paramByName(paramName: string, paramsText: string): string {
  const value = split(paramsText).get(paramName);
  if (value === undefined) throw new NotFoundError(paramName);
  return value;
}

/** `prefix/name` or `name` (a namespace or kind before the slash). */
export function splitPrefixedName(prefixedName: string): { prefix: string; name: string } {
  const parts = prefixedName.split("/");
  if (parts.length > 2) throw new Error(`invalid count ${parts.length - 1} of slashes in prefix/name`);
  const [prefix, name] = parts.length === 2 ? parts : ["", parts[0]];
  if (!name) throw new Error("name cannot be empty");
  return { prefix: prefix ?? "", name };
}

function wrapped<R>(flagName: string, body: () => R): R {
  try {
    return body();
  } catch (error) {
    throw flagError(flagName, (error as Error).message);
  }
}

/** The parameters by name; a later repetition wins, as in upstream's map. */
function split(paramsText: string): Map<string, string> {
  if (paramsText === "") throw new Error("params may not be empty");
  const params = new Map<string, string>();
  for (const param of paramsText.split(",")) {
    const colon = param.indexOf(":");
    if (colon < 0) throw new Error(`params need to have at least one colon: ${param}`);
    params.set(param.slice(0, colon), param.slice(colon + 1));
  }
  return params;
}

function apply<T extends ParamTable>(given: ReadonlyMap<string, string>, table: T): Params<T> {
  const values: Record<string, unknown> = {};
  for (const [param, kind] of Object.entries(table)) {
    const raw = given.get(param);
    values[param] = raw === undefined ? (kind === "string" ? "" : undefined) : convert(param, kind, raw);
  }
  return values as Params<T>;
}

function convert(param: string, kind: ParamKind, raw: string): unknown {
  const failed = (message: string) => new Error(`failed to parse param "${param}": ${message}`);
  switch (kind) {
    case "string":
      return raw;
    case "uint": {
      const parsed = parseUint32(raw);
      if (typeof parsed === "string") throw failed(parsed);
      return parsed;
    }
    case "quantity":
      try {
        return parseGoQuantity(raw);
      } catch (error) {
        if (error instanceof QuantityParseError) throw failed(error.message);
        throw error;
      }
    case "strings":
      return raw.split(";");
  }
}

const UINT32_MAX = 2 ** 32 - 1;

/** strconv.ParseUint(text, 10, 32): the value, or the error text Go gives. */
export function parseUint32(text: string): number | string {
  const syntax = `strconv.ParseUint: parsing "${text}": invalid syntax`;
  const range = `strconv.ParseUint: parsing "${text}": value out of range`;
  if (text === "") return syntax;
  let value = 0;
  // Go reads digit by digit, so an overflow before a bad character is reported as the overflow.
  for (const character of text) {
    if (character < "0" || character > "9") return syntax;
    value = value * 10 + Number(character);
    if (value > UINT32_MAX) return range;
  }
  return value;
}

/** resource.ParseQuantity, which unlike the webhook-side parser takes no surrounding blanks. */
export function parseGoQuantity(text: string): Quantity {
  if (text !== text.trim()) {
    throw new QuantityParseError(FORMAT_MESSAGE);
  }
  return Quantity.parse(text);
}

// The first object of a YAML or JSON stream, as upstream's virtctl reads a manifest (apimachinery's
// util/yaml YAMLOrJSONDecoder, then sigs.k8s.io/yaml): input starting with `{` is read as JSON first, and
// as YAML when that fails (JSON's error is the one reported when both do); YAML is the first document,
// in YAML 1.1 as go-yaml v2 reads it (`yes` is true, `0777` octal), timestamps left as strings. Where the
// Go type is a string, sigs.k8s.io/yaml turns YAML numbers and booleans into their text; `target` (the
// object's schema) says where. Errors are Go's words where the same check fails the same way; the YAML
// parser's own findings are mapped to go-yaml's messages for the common ones.
import { isMap, parseDocument, type Tags, type YAMLError } from "yaml";
import type { z } from "zod";
import { childSchema, expectsString } from "../api/parse.js";
import { goJsonDecodeFirst, goJsonTypeName } from "./go-json.js";

export type Decoded = { ok: true; value: unknown } | { ok: false; message: string };

/** How far apimachinery looks for the `{` that makes a stream JSON. */
const SNIFF_BYTES = 1024;
const SEPARATOR = "---";

/** go-yaml's wording for the parser findings users meet most. */
const GO_YAML_MESSAGES: Readonly<Record<string, string>> = {
  BLOCK_AS_IMPLICIT_KEY: "mapping values are not allowed in this context",
  TAB_AS_INDENT: "found character that cannot start any token",
};

const isJSONStream = (data: Uint8Array) =>
  /^\s*\{/u.test(Buffer.from(data.subarray(0, SNIFF_BYTES)).toString("utf8"));

/** Decodes the first object of `data` for a Go value of type `goType` (e.g. `v1.VirtualMachine`). */
export function decodeYAMLOrJSON(data: Uint8Array, target: z.ZodType, goType: string): Decoded {
  if (!isJSONStream(data)) return decodeYAML(data, target, goType);
  const first = goJsonDecodeFirst(data);
  if (first.ok) {
    const value = JSON.parse(Buffer.from(data.subarray(0, first.end)).toString("utf8")) as unknown;
    // A string field given a number fails Go's JSON decoding, and the YAML retry then converts it, reading
    // a JSON integer as a YAML integer.
    return { ok: true, value: asGoStrings(target, numbers(value, true)) };
  }
  const jsonError =
    first.offset === undefined ? first.message : `json: offset ${first.offset}: ${first.message}`;
  const retried = decodeYAML(data, target, goType);
  return retried.ok ? retried : { ok: false, message: jsonError };
}

/** apimachinery's YAMLReader: lines up to the next `---` line; a separator at the very start is kept. */
function firstDocument(text: string): { ok: true; document: string } | { ok: false; message: string } {
  let document = "";
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith(SEPARATOR)) {
      const rest = line.slice(SEPARATOR.length).trim();
      if (rest !== "" && !rest.startsWith("#")) {
        return { ok: false, message: `invalid Yaml document separator: ${rest}` };
      }
      if (document !== "") return { ok: true, document };
    }
    document += line;
  }
  return document === "" ? { ok: false, message: "EOF" } : { ok: true, document };
}

const withoutTimestamps = (tags: Tags): Tags =>
  tags.filter((tag) => typeof tag !== "object" || tag.tag !== "tag:yaml.org,2002:timestamp");

function decodeYAML(data: Uint8Array, target: z.ZodType, goType: string): Decoded {
  const found = firstDocument(Buffer.from(data).toString("utf8"));
  if (!found.ok) return found;
  const doc = parseDocument(found.document, {
    version: "1.1",
    schema: "yaml-1.1",
    customTags: withoutTimestamps,
    uniqueKeys: false,
    merge: true,
    intAsBigInt: true,
  });
  const [problem] = doc.errors;
  if (problem)
    return { ok: false, message: `error converting YAML to JSON: yaml: ${goYAMLMessage(problem)}` };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: -1 }) as unknown;
  } catch (error) {
    const alias = /alias[^:]*: (.*)$/.exec((error as Error).message)?.[1];
    const message = alias === undefined ? (error as Error).message : `unknown anchor '${alias}' referenced`;
    return { ok: false, message: `error converting YAML to JSON: yaml: ${message}` };
  }
  if (value === undefined || value === null) return { ok: true, value: null };
  if (!isMap(doc.contents)) {
    const what = typeof value === "bigint" ? "number" : goJsonTypeName(value);
    return {
      ok: false,
      message: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type ${goType}`,
    };
  }
  return { ok: true, value: asGoStrings(target, numbers(value, false)) };
}

/**
 * Integers told from floats, until it is known whether text or a number is wanted: YAML's are read as
 * bigints, JSON's are the numbers without a fraction.
 */
function numbers(value: unknown, json: boolean): unknown {
  if (typeof value === "bigint") return new GoInteger(value);
  if (json && typeof value === "number" && Number.isInteger(value)) return new GoInteger(BigInt(value));
  if (Array.isArray(value)) return value.map((item: unknown) => numbers(item, json));
  if (typeof value !== "object" || value === null) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) define(converted, key, numbers(member, json));
  return converted;
}

/** go-yaml's message: its words for the known findings, the parser's first line otherwise; `line N: ` past line 1. */
function goYAMLMessage(problem: YAMLError): string {
  const line = problem.linePos?.[0].line ?? 1;
  const words = GO_YAML_MESSAGES[problem.code] ?? problem.message.split(" at line ")[0] ?? problem.message;
  return line > 1 ? `line ${line}: ${words}` : words;
}

/** A YAML integer, kept apart from floats until it is known whether a string or a number is wanted. */
class GoInteger {
  constructor(readonly value: bigint) {}
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty: a `__proto__` key stays a key.
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** sigs.k8s.io/yaml's conversion: a number or boolean where a string is expected becomes its text. */
function asGoStrings(schema: z.ZodType | undefined, value: unknown): unknown {
  const wantsString = schema !== undefined && expectsString(schema);
  if (value instanceof GoInteger) return wantsString ? value.value.toString() : Number(value.value);
  if (wantsString && (typeof value === "number" || typeof value === "boolean")) {
    return typeof value === "boolean" ? String(value) : goFormatFloat32(value);
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => asGoStrings(schema && childSchema(schema, index), item));
  }
  if (typeof value !== "object" || value === null) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    define(converted, key, asGoStrings(schema && childSchema(schema, key), member));
  }
  return converted;
}

/**
 * strconv.FormatFloat(f, 'g', -1, 32), as sigs.k8s.io/yaml writes a float for a string field: the shortest
 * digits that read back as the same float32, with an exponent from 1e+06 on and below 1e-04.
 */
export function goFormatFloat32(value: number): string {
  const single = Math.fround(value);
  if (Number.isNaN(single)) return "NaN";
  if (!Number.isFinite(single)) return single > 0 ? "+Inf" : "-Inf";
  let precision = 1;
  while (precision < 9 && Math.fround(Number(single.toPrecision(precision))) !== single) precision++;
  const [mantissa = "", power = "0"] = single.toExponential(precision - 1).split("e");
  const exponent = Number(power);
  if (exponent < -4 || exponent >= 6) {
    const digits = String(Math.abs(exponent)).padStart(2, "0");
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${digits}`;
  }
  return String(Number(single.toPrecision(precision)));
}

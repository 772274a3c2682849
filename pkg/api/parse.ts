// Parses untrusted input with the generated zod schemas and reports every problem as a
// Kubernetes field error with its exact path, worded the way the apiserver's structural-schema
// validation words it (`spec.running: Invalid value: "string": spec.running in body must be of
// type boolean: "string"`). Never throws: any input yields a value or a list of errors.
import { z } from "zod";
import type { FieldError } from "./field.js";
import {
  OMIT_VALUE,
  Path,
  forbidden,
  internalError,
  invalid,
  notSupported,
  required,
  typeInvalid,
} from "./field.js";
import { definitionSchemas } from "./generated/index.js";
import type { DefinitionName, DefinitionTypes } from "./generated/index.js";

export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** The field reported for a problem with the input as a whole when no root path is given. */
export const ROOT_FIELD = "<root>";

type Segment = PropertyKey;

/** Parses `input`; every error's field is prefixed with `rootPath` when given. */
export function parse<T>(schema: z.ZodType<T>, input: unknown, rootPath?: Path): ParseResult<T> {
  try {
    const locate = (segments: readonly Segment[]): Located => locateField(schema, segments, rootPath);
    // A root that is not an object is refused by its type alone; paths below it would name no field.
    const rootIsObject = typeof input === "object" && input !== null && !Array.isArray(input);
    const refused = (rootIsObject ? protoKeyPaths(input) : []).map((segments) =>
      forbidden(locate(segments).field, PROTO_DETAIL),
    );
    const result = schema.safeParse(input, { reportInput: true });
    if (result.success && refused.length === 0) return { ok: true, value: result.data };
    const issues = result.success ? [] : result.error.issues;
    return {
      ok: false,
      errors: [...refused, ...issues.flatMap((issue) => issueToErrors(issue, [], locate))],
    };
  } catch (error) {
    const cause = error instanceof Error ? error : new Error(String(error));
    return { ok: false, errors: [internalError(rootPath ?? ROOT_FIELD, cause)] };
  }
}

const PROTO_KEY = "__proto__";
const PROTO_DETAIL = "the field name __proto__ is not allowed";

/**
 * Paths of own `__proto__` keys (JSON.parse creates them). Copying one into a parsed object
 * would set its prototype instead, so such input is refused rather than silently changed.
 */
function protoKeyPaths(input: unknown): Segment[][] {
  const found: Segment[][] = [];
  const pending: { value: unknown; path: Segment[] }[] = [{ value: input, path: [] }];
  const visited = new WeakSet<object>(); // JSON has no cycles, but in-memory objects may
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== "object" || value === null || visited.has(value)) continue;
    visited.add(value);
    if (Object.hasOwn(value, PROTO_KEY)) found.push([...path, PROTO_KEY]);
    const entries: [Segment, unknown][] = Array.isArray(value)
      ? value.map((item, i): [Segment, unknown] => [i, item])
      : Object.entries(value);
    for (const [key, child] of entries) pending.push({ value: child, path: [...path, key] });
  }
  return found;
}

export function isDefinitionName(name: string): name is DefinitionName {
  return Object.hasOwn(definitionSchemas, name);
}

/** Parses `input` as the reference definition `name`, e.g. `v1.VirtualMachine`. */
export function parseDefinition<N extends DefinitionName>(
  name: N,
  input: unknown,
  rootPath?: Path,
): ParseResult<DefinitionTypes[N]> {
  const schema: z.ZodType<DefinitionTypes[N]> = definitionSchemas[name];
  return parse(schema, input, rootPath);
}

// ---- zod issue → field errors ----

interface Located {
  field: string;
  /** The schema expected at that field, when the path could be followed. */
  schema: z.ZodType | undefined;
}

function issueToErrors(
  issue: z.core.$ZodIssue,
  prefix: readonly Segment[],
  locate: (segments: readonly Segment[]) => Located,
): FieldError[] {
  const segments = [...prefix, ...issue.path];
  const { field, schema } = locate(segments);
  const input = issue.input;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return [required(field)];
      return [typeMismatch(field, expectedTypeName(issue.expected, schema), input)];
    case "invalid_value":
      return [notSupported(field, input, issue.values.map(String))];
    case "invalid_union":
      return unionToErrors(issue, segments, locate);
    case "invalid_key":
    case "invalid_element":
      return issue.issues.flatMap((inner) => issueToErrors(inner, segments, locate));
    case "too_big":
      return [
        invalid(field, valueOf(input), `${field} in body should be less than or equal to ${issue.maximum}`),
      ];
    case "too_small":
      return [
        invalid(
          field,
          valueOf(input),
          `${field} in body should be greater than or equal to ${issue.minimum}`,
        ),
      ];
    default:
      return [invalid(field, valueOf(input), issue.message)];
  }
}

/** No branch matched: a plain type mismatch if every branch only disagreed on the type, else the closest branch. */
function unionToErrors(
  issue: z.core.$ZodIssueInvalidUnion,
  segments: readonly Segment[],
  locate: (segments: readonly Segment[]) => Located,
): FieldError[] {
  const branches = issue.errors;
  const onlyTypes = branches.every(
    (b) => b.length === 1 && b[0]?.code === "invalid_type" && b[0].path.length === 0,
  );
  const { field } = locate(segments);
  if (branches.length === 0 || onlyTypes) {
    if (issue.input === undefined) return [required(field)];
    const expected = branches.flatMap((b) =>
      b[0]?.code === "invalid_type" ? [expectedTypeName(b[0].expected)] : [],
    );
    return [typeMismatch(field, [...new Set(expected)].join(" or ") || "a supported type", issue.input)];
  }
  const closest = branches
    .filter((b) => !(b.length === 1 && b[0]?.code === "invalid_type" && b[0].path.length === 0))
    .reduce((best, b) => (b.length < best.length ? b : best));
  return closest.flatMap((inner) => issueToErrors(inner, segments, locate));
}

function typeMismatch(field: string, expected: string, input: unknown): FieldError {
  const actual = jsonTypeName(input);
  return typeInvalid(field, actual, `${field} in body must be of type ${expected}: "${actual}"`);
}

function valueOf(input: unknown): unknown {
  return input === undefined ? OMIT_VALUE : input;
}

/** OpenAPI's name for a JSON value's type. */
function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** OpenAPI's name for the type zod expected (zod says `number` for an integer that got a string). */
function expectedTypeName(expected: string, schema?: z.ZodType): string {
  if (expected === "int" || (expected === "number" && schema instanceof z.ZodNumber && schema.isInt)) {
    return "integer";
  }
  return expected === "record" ? "object" : expected;
}

// ---- zod path → Kubernetes field path ----

/**
 * Follows `segments` through the schema: array items print as `[i]`, properties and map entries
 * as `.name` (the apiserver's schema validation names map entries like properties), and the
 * schema found at the end tells an integer field from a number field.
 */
function locateField(root: z.ZodType, segments: readonly Segment[], rootPath: Path | undefined): Located {
  let schema: z.ZodType | undefined = root;
  let path = rootPath;
  for (const segment of segments) {
    if (typeof segment === "number") {
      path = (path ?? Path.of("")).index(segment);
    } else {
      const name = String(segment);
      path = path === undefined ? Path.of(name) : path.child(name);
    }
    schema = childSchema(schema, segment);
  }
  return { field: path?.toString() ?? ROOT_FIELD, schema: schema === undefined ? undefined : unwrap(schema) };
}

/**
 * The schema one step below `schema`: an array's item for an index, an object's member or a map's value for
 * a name; undefined where the schema says nothing (an unknown member, a free-form value).
 */
export function childSchema(schema: z.ZodType | undefined, segment: Segment): z.ZodType | undefined {
  const container = schema === undefined ? undefined : containerFor(unwrap(schema), segment);
  if (typeof segment === "number") {
    return container instanceof z.ZodArray ? (container.element as z.ZodType) : undefined;
  }
  return memberSchema(container, String(segment));
}

/** Whether `schema` takes a string and nothing else (a Go string field: plain, patterned or an enum). */
export function expectsString(schema: z.ZodType): boolean {
  const bare = unwrap(schema);
  return bare instanceof z.ZodString || bare instanceof z.ZodEnum;
}

/** Whether `schema` is an object schema (or a union with one) that does not declare the member `name`. */
export function isUnknownMember(schema: z.ZodType, name: string): boolean {
  const container = containerFor(unwrap(schema), name);
  return container instanceof z.ZodObject && !Object.hasOwn(container.shape, name);
}

function memberSchema(container: z.ZodType | undefined, name: string): z.ZodType | undefined {
  if (container instanceof z.ZodRecord) return container.valueType as z.ZodType;
  if (container instanceof z.ZodObject && Object.hasOwn(container.shape, name)) {
    return (container.shape as Record<string, z.ZodType>)[name];
  }
  return undefined;
}

/** Strips optional / nullable / lazy wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodLazy
    ) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The schema that holds `segment`: the schema itself, or the union branch of the right shape. */
function containerFor(schema: z.ZodType, segment: Segment): z.ZodType | undefined {
  if (!(schema instanceof z.ZodUnion)) return schema;
  const wanted = typeof segment === "number" ? [z.ZodArray] : [z.ZodObject, z.ZodRecord];
  const options = (schema.options as z.ZodType[]).map(unwrap);
  return options.find((option) => wanted.some((kind) => option instanceof kind));
}

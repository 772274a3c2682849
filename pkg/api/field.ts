// Kubernetes-style field errors (apimachinery's util/validation/field): a path builder, the error
// types with their `reason` names, Go-compatible messages, and the conversions to the metav1
// StatusCause / Status objects that the apiserver and KubeVirt's admission webhooks answer with.
// Parsers, webhooks and the REST API all report bad input through this one module.
import type { Status, StatusCause } from "./generated/k8s.js";

/** A field path such as `spec.template.spec.domain.devices.disks[0].name`. Immutable. */
export class Path {
  private constructor(
    private readonly parent: Path | undefined,
    /** A field name, or undefined when this element is a subscript. */
    private readonly name: string | undefined,
    private readonly subscript: string,
  ) {}

  /** Starts a path at one or more field names (Go: `field.NewPath`). */
  static of(name: string, ...moreNames: string[]): Path {
    return new Path(undefined, name, "").child(...moreNames);
  }

  child(...names: string[]): Path {
    return names.reduce<Path>((parent, name) => new Path(parent, name, ""), this);
  }

  /** An array element: `disks[0]`. */
  index(index: number): Path {
    return new Path(this, undefined, String(index));
  }

  /** A map entry: `labels[app]`. */
  key(key: string): Path {
    return new Path(this, undefined, key);
  }

  toString(): string {
    const own = this.name === undefined ? `[${this.subscript}]` : this.name;
    if (this.parent === undefined) return own;
    const separator = this.name === undefined || this.name === "" ? "" : ".";
    return `${this.parent.toString()}${separator}${own}`;
  }
}

/** Starts a field path (Go: `field.NewPath`). */
export function newPath(name: string, ...moreNames: string[]): Path {
  return Path.of(name, ...moreNames);
}

/** The error types, by their metav1 CauseType (the `reason` of a StatusCause). */
export const FieldErrorType = {
  NotFound: "FieldValueNotFound",
  Required: "FieldValueRequired",
  Duplicate: "FieldValueDuplicate",
  Invalid: "FieldValueInvalid",
  NotSupported: "FieldValueNotSupported",
  Forbidden: "FieldValueForbidden",
  TooLong: "FieldValueTooLong",
  TooMany: "FieldValueTooMany",
  Internal: "InternalError",
  TypeInvalid: "FieldValueTypeInvalid",
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

/** The human wording of each type, as Go's `ErrorType.String()` prints it. */
const TYPE_WORDING: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

/** Types whose message never shows the offending value. */
const VALUELESS_TYPES: ReadonlySet<FieldErrorType> = new Set<FieldErrorType>([
  FieldErrorType.Required,
  FieldErrorType.Forbidden,
  FieldErrorType.TooLong,
  FieldErrorType.Internal,
]);

/** Marks an error whose value is deliberately not printed (Go: `omitValue`). */
export const OMIT_VALUE: unique symbol = Symbol("omit value");

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    /** The field path as a string, e.g. `spec.running`. */
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string = "",
  ) {}

  /** The message without the field (Go: `ErrorBody()`), e.g. `Invalid value: "x": must be y`. */
  body(): string {
    const wording = TYPE_WORDING[this.type];
    const head =
      VALUELESS_TYPES.has(this.type) || this.badValue === OMIT_VALUE
        ? wording
        : `${wording}: ${goValue(this.badValue)}`;
    return this.detail === "" ? head : `${head}: ${this.detail}`;
  }

  /** `spec.x: Required value`, like Go's `Error()`. */
  toString(): string {
    return `${this.field}: ${this.body()}`;
  }

  toStatusCause(): StatusCause {
    return { reason: this.type, message: this.body(), field: this.field };
  }
}

export type FieldErrorList = FieldError[];

type PathLike = Path | string;
const fieldOf = (path: PathLike): string => path.toString();

export const required = (path: PathLike, detail = ""): FieldError =>
  new FieldError(FieldErrorType.Required, fieldOf(path), "", detail);

export const forbidden = (path: PathLike, detail: string): FieldError =>
  new FieldError(FieldErrorType.Forbidden, fieldOf(path), "", detail);

export const invalid = (path: PathLike, value: unknown, detail: string): FieldError =>
  new FieldError(FieldErrorType.Invalid, fieldOf(path), value, detail);

export const typeInvalid = (path: PathLike, value: unknown, detail: string): FieldError =>
  new FieldError(FieldErrorType.TypeInvalid, fieldOf(path), value, detail);

export const notFound = (path: PathLike, value: unknown): FieldError =>
  new FieldError(FieldErrorType.NotFound, fieldOf(path), value);

export const duplicate = (path: PathLike, value: unknown): FieldError =>
  new FieldError(FieldErrorType.Duplicate, fieldOf(path), value);

export function notSupported(path: PathLike, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length === 0 ? "" : `supported values: ${validValues.map(goQuote).join(", ")}`;
  return new FieldError(FieldErrorType.NotSupported, fieldOf(path), value, detail);
}

export function tooLong(path: PathLike, maxLength: number): FieldError {
  const detail =
    maxLength >= 0
      ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}`
      : "value is too long";
  return new FieldError(FieldErrorType.TooLong, fieldOf(path), "<value omitted>", detail);
}

export function tooMany(path: PathLike, actualQuantity: number, maxQuantity: number): FieldError {
  const detail =
    maxQuantity >= 0
      ? `must have at most ${maxQuantity} ${maxQuantity === 1 ? "item" : "items"}`
      : "has too many items";
  return new FieldError(
    FieldErrorType.TooMany,
    fieldOf(path),
    actualQuantity >= 0 ? actualQuantity : OMIT_VALUE,
    detail,
  );
}

export const internalError = (path: PathLike, error: Error): FieldError =>
  new FieldError(FieldErrorType.Internal, fieldOf(path), null, error.message);

/**
 * All errors as one message, like Go's `ErrorList.ToAggregate().Error()`: duplicates dropped,
 * one error bare, several as `[a, b]`; empty for no errors.
 */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map((e) => e.toString()))];
  return messages.length === 1
    ? (messages[0] ?? "")
    : messages.length === 0
      ? ""
      : `[${messages.join(", ")}]`;
}

export function toStatusCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => e.toStatusCause());
}

/**
 * The 422 `Invalid` Status the apiserver answers for an object that fails validation
 * (Go: `apierrors.NewInvalid`), e.g. `VirtualMachine.kubevirt.io "vm1" is invalid: spec.x: Required value`.
 */
export function invalidStatus(
  groupKind: { group: string; kind: string },
  name: string,
  errors: readonly FieldError[],
): Status {
  const qualifiedKind = groupKind.group === "" ? groupKind.kind : `${groupKind.kind}.${groupKind.group}`;
  const aggregate = aggregateMessage(errors);
  const subject = `${qualifiedKind} ${goQuote(name)} is invalid`;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: aggregate === "" ? subject : `${subject}: ${aggregate}`,
    reason: "Invalid",
    details: { group: groupKind.group, kind: groupKind.kind, name, causes: toStatusCauses(errors) },
    code: 422,
  };
}

// ---- Go formatting of values in messages ----

const GO_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** A double-quoted Go string literal, like `strconv.Quote` / `%q`. */
export function goQuote(text: string): string {
  let quoted = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const escape = GO_ESCAPES[char];
    if (escape !== undefined) quoted += escape;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`;
    else if ((code >= 0x80 && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff)
      quoted += `\\u${code.toString(16).padStart(4, "0")}`;
    else quoted += char;
  }
  return `"${quoted}"`;
}

/** A float as Go's `%v` prints it: shortest digits, an exponent below 1e-4 and from 1e6 on. */
function goFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  const [mantissa = "", power = "0"] = value.toExponential().split("e");
  const exponent = Number(power);
  if (exponent >= -4 && exponent < 6) return String(value);
  const sign = exponent < 0 ? "-" : "+";
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** JSON the way Go's `json.Marshal` writes it: sorted keys, HTML-safe escapes. */
function goJson(value: unknown, seen: WeakSet<object> = new WeakSet()): string {
  if (typeof value === "string") {
    return JSON.stringify(value).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return "null";
  if (seen.has(value)) return '"<cycle>"';
  seen.add(value);
  const text = Array.isArray(value)
    ? `[${value.map((item: unknown) => goJson(item, seen)).join(",")}]`
    : `{${Object.keys(value)
        .sort()
        .map((key) => `${goJson(key)}:${goJson((value as Record<string, unknown>)[key], seen)}`)
        .join(",")}}`;
  seen.delete(value);
  return text;
}

/** A bad value as Go's field errors print it: numbers and booleans bare, strings quoted, the rest as JSON. */
export function goValue(value: unknown): string {
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : goFloat(value);
  return goJson(value);
}

// XDR codecs (RFC 4506) as composable values: every XDR type is an `XdrCodec<T>` that encodes a
// TypeScript value and decodes it back. hack/libvirt-gen emits one codec per type of libvirt's
// protocol files by combining these.
//
// TypeScript mapping: int/unsigned/enum/char/short/float/double -> number, hyper -> bigint (64-bit
// values lose precision as numbers), bool -> boolean, string -> string (UTF-8 on the wire),
// opaque -> Uint8Array, arrays -> T[], optional `T *` -> T | null, union -> object holding the
// discriminant and the chosen arm's field.
import { XdrDecodeError, XdrEncodeError, XdrReader, XdrWriter, atPath } from "./xdr-stream.js";

export { XdrDecodeError, XdrEncodeError, XdrReader, XdrWriter } from "./xdr-stream.js";

export interface XdrCodec<T> {
  /** The type as the protocol spells it, for error messages. */
  readonly xdrType: string;
  /** The fewest bytes a value takes on the wire; bounds how many elements a length may claim. */
  readonly minSize: number;
  encode(writer: XdrWriter, value: T): void;
  decode(reader: XdrReader): T;
}

/** The TypeScript type a codec stands for. */
export type XdrValue<C> = C extends XdrCodec<infer T> ? T : never;

/** Largest length XDR can express: the default bound of `string x<>`, `opaque x<>`, `T x<>`. */
export const XDR_UNBOUNDED = 0xffffffff;

export function encodeXdr<T>(codec: XdrCodec<T>, value: T): Buffer {
  const writer = new XdrWriter();
  codec.encode(writer, value);
  return writer.toBuffer();
}

/** Decodes exactly one value: bytes left over are an error, as they mean a type mismatch. */
export function decodeXdr<T>(codec: XdrCodec<T>, bytes: Uint8Array): T {
  const reader = new XdrReader(bytes);
  const value = codec.decode(reader);
  reader.expectEnd();
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return `string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return `${typeof value} ${String(value)}`;
  }
  return typeof value;
}

function integer(xdrType: string, min: number, max: number, signed: boolean): XdrCodec<number> {
  return {
    xdrType,
    minSize: 4,
    encode(writer, value) {
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
        throw new XdrEncodeError(`expected ${xdrType} in [${min}, ${max}], got ${describe(value)}`);
      }
      if (signed) writer.writeInt32(value);
      else writer.writeUint32(value);
    },
    decode: (reader) => (signed ? reader.readInt32() : reader.readUint32()),
  };
}

export const int: XdrCodec<number> = integer("int", -0x80000000, 0x7fffffff, true);
export const uint: XdrCodec<number> = integer("unsigned int", 0, 0xffffffff, false);

function hyperInteger(xdrType: string, min: bigint, max: bigint, signed: boolean): XdrCodec<bigint> {
  return {
    xdrType,
    minSize: 8,
    encode(writer, value) {
      if (typeof value !== "bigint" || value < min || value > max) {
        throw new XdrEncodeError(
          `expected ${xdrType} as a bigint in [${min}, ${max}], got ${describe(value)}`,
        );
      }
      if (signed) writer.writeInt64(value);
      else writer.writeUint64(value);
    },
    decode: (reader) => (signed ? reader.readInt64() : reader.readUint64()),
  };
}

export const hyper: XdrCodec<bigint> = hyperInteger("hyper", -(1n << 63n), (1n << 63n) - 1n, true);
export const uhyper: XdrCodec<bigint> = hyperInteger("unsigned hyper", 0n, (1n << 64n) - 1n, false);

function floating(xdrType: string, size: 4 | 8): XdrCodec<number> {
  return {
    xdrType,
    minSize: size,
    encode(writer, value) {
      if (typeof value !== "number") throw new XdrEncodeError(`expected ${xdrType}, got ${describe(value)}`);
      if (size === 4) writer.writeFloat32(value);
      else writer.writeFloat64(value);
    },
    decode: (reader) => (size === 4 ? reader.readFloat32() : reader.readFloat64()),
  };
}

export const float: XdrCodec<number> = floating("float", 4);
export const double: XdrCodec<number> = floating("double", 8);

export const bool: XdrCodec<boolean> = {
  xdrType: "bool",
  minSize: 4,
  encode(writer, value) {
    if (typeof value !== "boolean") throw new XdrEncodeError(`expected bool, got ${describe(value)}`);
    writer.writeInt32(value ? 1 : 0);
  },
  decode(reader) {
    const offset = reader.offset;
    const raw = reader.readInt32();
    if (raw !== 0 && raw !== 1) throw new XdrDecodeError(`bool must be 0 or 1, got ${raw}`, offset);
    return raw === 1;
  },
};

/** Reads a length prefix and checks it against the bound and against the bytes really left. */
function readLength(reader: XdrReader, max: number, xdrType: string, elementMinSize: number): number {
  const offset = reader.offset;
  const length = reader.readUint32();
  if (length > max) throw new XdrDecodeError(`${xdrType} length ${length} exceeds its bound ${max}`, offset);
  // Refuse before allocating: a random length must not make us build a huge array.
  if (length * Math.max(elementMinSize, 1) > reader.remaining) {
    throw new XdrDecodeError(
      `${xdrType} claims ${length} elements, only ${reader.remaining} bytes left`,
      offset,
    );
  }
  return length;
}

function checkLength(actual: number, max: number, xdrType: string, unit: string): void {
  if (actual > max) throw new XdrEncodeError(`${xdrType} is ${actual} ${unit} long, its bound is ${max}`);
}

export function string(max: number = XDR_UNBOUNDED): XdrCodec<string> {
  const xdrType = max === XDR_UNBOUNDED ? "string<>" : `string<${max}>`;
  return {
    xdrType,
    minSize: 4,
    encode(writer, value) {
      if (typeof value !== "string") throw new XdrEncodeError(`expected ${xdrType}, got ${describe(value)}`);
      const bytes = Buffer.from(value, "utf8");
      checkLength(bytes.length, max, xdrType, "bytes");
      writer.writeUint32(bytes.length);
      writer.writePadded(bytes);
    },
    decode(reader) {
      const length = readLength(reader, max, xdrType, 1);
      return reader.readPadded(length).toString("utf8");
    },
  };
}

function expectBytes(value: unknown, xdrType: string): Uint8Array {
  if (!(value instanceof Uint8Array))
    throw new XdrEncodeError(`expected ${xdrType} bytes, got ${describe(value)}`);
  return value;
}

export function opaqueFixed(size: number): XdrCodec<Uint8Array> {
  const xdrType = `opaque[${size}]`;
  return {
    xdrType,
    minSize: size + ((4 - (size % 4)) % 4),
    encode(writer, value) {
      const bytes = expectBytes(value, xdrType);
      if (bytes.length !== size)
        throw new XdrEncodeError(`${xdrType} needs exactly ${size} bytes, got ${bytes.length}`);
      writer.writePadded(bytes);
    },
    decode: (reader) => reader.readPadded(size),
  };
}

export function opaque(max: number = XDR_UNBOUNDED): XdrCodec<Uint8Array> {
  const xdrType = max === XDR_UNBOUNDED ? "opaque<>" : `opaque<${max}>`;
  return {
    xdrType,
    minSize: 4,
    encode(writer, value) {
      const bytes = expectBytes(value, xdrType);
      checkLength(bytes.length, max, xdrType, "bytes");
      writer.writeUint32(bytes.length);
      writer.writePadded(bytes);
    },
    decode(reader) {
      return reader.readPadded(readLength(reader, max, xdrType, 1));
    },
  };
}

function encodeElements<T>(writer: XdrWriter, element: XdrCodec<T>, values: readonly T[]): void {
  values.forEach((item, index) => atPath(`[${index}]`, () => element.encode(writer, item)));
}

function decodeElements<T>(reader: XdrReader, element: XdrCodec<T>, count: number): T[] {
  const values: T[] = [];
  for (let index = 0; index < count; index++) values.push(atPath(`[${index}]`, () => element.decode(reader)));
  return values;
}

export function fixedArray<T>(element: XdrCodec<T>, size: number): XdrCodec<T[]> {
  const xdrType = `${element.xdrType}[${size}]`;
  return {
    xdrType,
    minSize: element.minSize * size,
    encode(writer, value) {
      if (!Array.isArray(value) || value.length !== size) {
        throw new XdrEncodeError(`expected ${xdrType} (an array of ${size}), got ${describe(value)}`);
      }
      encodeElements(writer, element, value);
    },
    decode: (reader) => decodeElements(reader, element, size),
  };
}

export function array<T>(element: XdrCodec<T>, max: number = XDR_UNBOUNDED): XdrCodec<T[]> {
  const xdrType = `${element.xdrType}<${max === XDR_UNBOUNDED ? "" : max}>`;
  return {
    xdrType,
    minSize: 4,
    encode(writer, value) {
      if (!Array.isArray(value))
        throw new XdrEncodeError(`expected ${xdrType} (an array), got ${describe(value)}`);
      checkLength(value.length, max, xdrType, "elements");
      writer.writeUint32(value.length);
      encodeElements(writer, element, value);
    },
    decode: (reader) => decodeElements(reader, element, readLength(reader, max, xdrType, element.minSize)),
  };
}

/** `T *name`: a boolean "present" word, then the value if present. */
export function optional<T>(element: XdrCodec<T>): XdrCodec<T | null> {
  const xdrType = `${element.xdrType} *`;
  return {
    xdrType,
    minSize: 4,
    encode(writer, value) {
      if (value === null || value === undefined) {
        writer.writeUint32(0);
        return;
      }
      writer.writeUint32(1);
      element.encode(writer, value);
    },
    decode(reader) {
      const offset = reader.offset;
      const present = reader.readUint32();
      if (present === 0) return null;
      if (present !== 1)
        throw new XdrDecodeError(`${xdrType}: presence flag must be 0 or 1, got ${present}`, offset);
      return element.decode(reader);
    },
  };
}

export function enumeration<T extends number>(name: string, values: readonly T[]): XdrCodec<T> {
  const allowed = new Set<number>(values);
  const isMember = (value: unknown): value is T => typeof value === "number" && allowed.has(value);
  return {
    xdrType: `enum ${name}`,
    minSize: 4,
    encode(writer, value) {
      if (!isMember(value)) throw new XdrEncodeError(`${describe(value)} is not a value of enum ${name}`);
      writer.writeInt32(value);
    },
    decode(reader) {
      const offset = reader.offset;
      const raw = reader.readInt32();
      if (!isMember(raw)) throw new XdrDecodeError(`${raw} is not a value of enum ${name}`, offset);
      return raw;
    },
  };
}

function expectObject(value: unknown, xdrType: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new XdrEncodeError(`expected ${xdrType} (an object), got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** A struct: its fields in declaration order (the key order of `fields`). */
export function struct<T extends object>(
  name: string,
  fields: { [K in keyof T]-?: XdrCodec<T[K]> },
): XdrCodec<T> {
  const entries = Object.entries(fields) as [string, XdrCodec<unknown>][];
  const xdrType = `struct ${name}`;
  return {
    xdrType,
    minSize: entries.reduce((sum, [, codec]) => sum + codec.minSize, 0),
    encode(writer, value) {
      const object = expectObject(value, xdrType);
      for (const [field, codec] of entries) atPath(field, () => codec.encode(writer, object[field]));
    },
    decode(reader) {
      const object: Record<string, unknown> = {};
      for (const [field, codec] of entries) object[field] = atPath(field, () => codec.decode(reader));
      return object as T;
    },
  };
}

/** One arm of a union: the discriminant values that select it and its field (none for `void`). */
export interface UnionArm {
  readonly cases: readonly number[];
  readonly field: string | null;
  readonly codec: XdrCodec<unknown> | null;
}

/**
 * A discriminated union. The TypeScript value is one object holding the discriminant under its
 * declared name and, unless the arm is `void`, the arm's field.
 */
export function union<T extends object>(
  name: string,
  discriminant: { readonly field: string; readonly codec: XdrCodec<number> },
  arms: readonly UnionArm[],
  defaultArm: Omit<UnionArm, "cases"> | null,
): XdrCodec<T> {
  const byCase = new Map<number, Omit<UnionArm, "cases">>();
  for (const arm of arms) for (const value of arm.cases) byCase.set(value, arm);
  const xdrType = `union ${name}`;
  const armFor = (value: number): Omit<UnionArm, "cases"> | undefined =>
    byCase.get(value) ?? defaultArm ?? undefined;
  const armSizes = [...arms, ...(defaultArm ? [defaultArm] : [])].map((arm) => arm.codec?.minSize ?? 0);
  return {
    xdrType,
    minSize: discriminant.codec.minSize + (armSizes.length === 0 ? 0 : Math.min(...armSizes)),
    encode(writer, value) {
      const object = expectObject(value, xdrType);
      const selector = object[discriminant.field];
      atPath(discriminant.field, () => discriminant.codec.encode(writer, selector as number));
      const arm = armFor(selector as number);
      if (!arm)
        throw new XdrEncodeError(`${xdrType} has no arm for ${discriminant.field} = ${String(selector)}`);
      if (arm.field !== null && arm.codec !== null) {
        const { field, codec } = arm;
        atPath(field, () => codec.encode(writer, object[field]));
      }
    },
    decode(reader) {
      const offset = reader.offset;
      const selector = atPath(discriminant.field, () => discriminant.codec.decode(reader));
      const arm = armFor(selector);
      if (!arm)
        throw new XdrDecodeError(`${xdrType} has no arm for ${discriminant.field} = ${selector}`, offset);
      const object: Record<string, unknown> = { [discriminant.field]: selector };
      if (arm.field !== null && arm.codec !== null) {
        const { field, codec } = arm;
        object[field] = atPath(field, () => codec.decode(reader));
      }
      return object as T;
    },
  };
}

/** Refers to a codec defined further down (recursive types such as linked lists). */
export function lazy<T>(xdrType: string, resolve: () => XdrCodec<T>): XdrCodec<T> {
  return {
    xdrType,
    // Unknown until resolved; 0 is a safe lower bound.
    minSize: 0,
    encode: (writer, value) => resolve().encode(writer, value),
    decode: (reader) => resolve().decode(reader),
  };
}

/** The member name of an enum value, e.g. `enumName(VirDomainState, 1)` is "VIR_DOMAIN_RUNNING". */
export function enumName(members: Readonly<Record<string, number>>, value: number): string | undefined {
  return Object.keys(members).find((name) => members[name] === value);
}

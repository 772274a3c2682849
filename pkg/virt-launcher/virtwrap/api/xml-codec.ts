// A small declarative XML mapping, in the spirit of Go's `xml:"name,attr"` struct tags: each
// schema type lists how its fields map to attributes, character data and child elements, and
// one generic encoder/decoder walks it. The object form is the one fast-xml-parser reads and
// writes (attributes as "@_name", character data as "#text").

/** An element in fast-xml-parser's object form. */
export type XmlNode = Record<string, unknown>;

export const ATTR_PREFIX = "@_";
export const TEXT_KEY = "#text";

/** Raised when XML does not fit the schema (a missing required part, a malformed number). */
export class DomainXMLError extends Error {
  constructor(where: string, detail: string) {
    super(`domain XML ${where}: ${detail}`);
    this.name = "DomainXMLError";
  }
}

export interface ScalarCodec<T> {
  encode(value: T): string;
  decode(text: string, where: string): T;
}

export const str: ScalarCodec<string> = {
  encode: (value) => value,
  decode: (text) => text,
};

/** Non-negative integers (sizes, counts, indexes); libvirt writes them in decimal. */
export const uint: ScalarCodec<number> = {
  encode: (value) => {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not an unsigned integer: ${value}`);
    return String(value);
  },
  decode: (text, where) => {
    const trimmed = text.trim();
    if (!/^\d+$/.test(trimmed))
      throw new DomainXMLError(where, `expected an unsigned integer, got "${text}"`);
    const value = Number(trimmed);
    if (!Number.isSafeInteger(value)) throw new DomainXMLError(where, `integer out of range: ${text}`);
    return value;
  },
};

/** Signed integers (Go's int64 fields such as a grace period). */
export const int: ScalarCodec<number> = {
  encode: (value) => {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
    return String(value);
  },
  decode: (text, where) => {
    const trimmed = text.trim();
    if (!/^-?\d+$/.test(trimmed)) throw new DomainXMLError(where, `expected an integer, got "${text}"`);
    const value = Number(trimmed);
    if (!Number.isSafeInteger(value)) throw new DomainXMLError(where, `integer out of range: ${text}`);
    return value;
  },
};

/** Go's encoding/xml writes booleans as true/false. */
export const bool: ScalarCodec<boolean> = {
  encode: (value) => String(value),
  decode: (text, where) => {
    const trimmed = text.trim();
    if (trimmed === "true" || trimmed === "1") return true;
    if (trimmed === "false" || trimmed === "0") return false;
    throw new DomainXMLError(where, `expected true or false, got "${text}"`);
  },
};

/**
 * How one field of type V is written into, and read back from, its parent element. Functions are
 * properties (not methods) so the compiler checks V strictly in both directions.
 */
export interface Field<V> {
  readonly encode: (value: V, parent: XmlNode) => void;
  readonly decode: (parent: XmlNode, where: string) => V;
}

export interface XmlType<T> {
  readonly encode: (value: T) => XmlNode;
  readonly decode: (node: XmlNode, where: string) => T;
}

type Fields<T> = { readonly [K in keyof T]-?: Field<T[K]> };

/** A struct-like element; `fixedAttrs` are written on every instance (e.g. an xmlns). */
export function struct<T>(fields: Fields<T>, fixedAttrs: Record<string, string> = {}): XmlType<T> {
  const entries = Object.entries(fields) as [keyof T & string, Field<unknown>][];
  return {
    encode: (value) => {
      const node: XmlNode = {};
      for (const [name, fixed] of Object.entries(fixedAttrs)) node[ATTR_PREFIX + name] = fixed;
      for (const [key, field] of entries) field.encode(value[key], node);
      return node;
    },
    decode: (node, where) => {
      const value: Partial<Record<keyof T, unknown>> = {};
      for (const [key, field] of entries) {
        const decoded = field.decode(node, where);
        if (decoded !== undefined) value[key] = decoded;
      }
      return value as T;
    },
  };
}

/** An element without content, like `<acpi/>`. */
export type Empty = Record<string, never>;
export const empty: XmlType<Empty> = struct<Empty>({});

function isNode(value: unknown): value is XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** fast-xml-parser gives a bare string for a text-only element unless told otherwise; accept both. */
function asNode(value: unknown, where: string): XmlNode {
  if (typeof value === "string") return { [TEXT_KEY]: value };
  if (isNode(value)) return value;
  throw new DomainXMLError(where, "expected an element");
}

/** Repeated elements come as an array, a single one as the element itself. */
function asNodes(value: unknown, where: string): XmlNode[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => asNode(item, where));
}

function textOf(node: XmlNode): string {
  const text = node[TEXT_KEY];
  return typeof text === "string" || typeof text === "number" ? String(text) : "";
}

function missing(where: string, what: string): never {
  throw new DomainXMLError(where, `missing ${what}`);
}

function attrField<T>(name: string, codec: ScalarCodec<T>, required: boolean): Field<T | undefined> {
  const key = ATTR_PREFIX + name;
  return {
    encode: (value, parent) => {
      if (value !== undefined) parent[key] = codec.encode(value);
    },
    decode: (parent, where) => {
      const raw = parent[key];
      if (raw === undefined) return required ? missing(where, `attribute ${name}`) : undefined;
      return codec.decode(String(raw), `${where}/@${name}`);
    },
  };
}

/** An optional attribute. */
export function attr<T>(name: string, codec: ScalarCodec<T>): Field<T | undefined> {
  return attrField(name, codec, false);
}

/** An attribute every instance has (Go's non-omitempty `attr`). */
export function requiredAttr<T>(name: string, codec: ScalarCodec<T>): Field<T> {
  return attrField(name, codec, true) as Field<T>;
}

/** The element's own character data (Go's `,chardata`); absent reads as the empty string. */
export function chardata<T>(codec: ScalarCodec<T>): Field<T> {
  return {
    encode: (value, parent) => {
      parent[TEXT_KEY] = codec.encode(value);
    },
    decode: (parent, where) => codec.decode(textOf(parent), where),
  };
}

function childField<T>(name: string, type: XmlType<T>, required: boolean): Field<T | undefined> {
  return {
    encode: (value, parent) => {
      if (value !== undefined) parent[name] = type.encode(value);
    },
    decode: (parent, where) => {
      const [first] = asNodes(parent[name], `${where}/${name}`);
      if (first === undefined) return required ? missing(where, `<${name}>`) : undefined;
      return type.decode(first, `${where}/${name}`);
    },
  };
}

/** An optional child element. */
export function child<T>(name: string, type: XmlType<T>): Field<T | undefined> {
  return childField(name, type, false);
}

/** A child element every instance has. */
export function requiredChild<T>(name: string, type: XmlType<T>): Field<T> {
  return childField(name, type, true) as Field<T>;
}

/** A child element read as `fallback` when absent (Go's zero value for a non-pointer struct). */
export function childOr<T>(name: string, type: XmlType<T>, fallback: () => T): Field<T> {
  const field = childField(name, type, false);
  return {
    encode: (value, parent) => field.encode(value, parent),
    decode: (parent, where) => field.decode(parent, where) ?? fallback(),
  };
}

/** A repeated child element; an empty or absent list writes nothing. */
export function children<T>(name: string, type: XmlType<T>): Field<T[] | undefined> {
  return {
    encode: (values, parent) => {
      if (values !== undefined && values.length > 0) parent[name] = values.map((value) => type.encode(value));
    },
    decode: (parent, where) => {
      const nodes = asNodes(parent[name], `${where}/${name}`);
      if (nodes.length === 0) return undefined;
      return nodes.map((node, index) => type.decode(node, `${where}/${name}[${index + 1}]`));
    },
  };
}

function textType<T>(codec: ScalarCodec<T>): XmlType<T> {
  return {
    encode: (value) => ({ [TEXT_KEY]: codec.encode(value) }),
    decode: (node, where) => codec.decode(textOf(node), where),
  };
}

/** A child element holding only text, like `<name>vm</name>`. */
export function textChild<T>(name: string, codec: ScalarCodec<T>): Field<T | undefined> {
  return child(name, textType(codec));
}

/** A text-only child every instance has. */
export function requiredTextChild<T>(name: string, codec: ScalarCodec<T>): Field<T> {
  return requiredChild(name, textType(codec));
}

/** Go's `xml:"outer>inner"`: a list of `inner` elements inside one `outer` element. */
export function wrapped<T>(outer: string, inner: string, type: XmlType<T>): Field<T[] | undefined> {
  const list = children(inner, type);
  const wrapper: XmlType<T[] | undefined> = {
    encode: (values) => {
      const node: XmlNode = {};
      list.encode(values, node);
      return node;
    },
    decode: (node, where) => list.decode(node, where),
  };
  const outerField = child(outer, wrapper);
  return {
    encode: (values, parent) => {
      if (values !== undefined && values.length > 0) outerField.encode(values, parent);
    },
    decode: (parent, where) => outerField.decode(parent, where) ?? undefined,
  };
}

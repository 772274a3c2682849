// The helpers every generated schema module (pkg/api/generated) is composed with. Generated schemas are composed only
// through these helpers, which take and return the plain `z.ZodType`: the compiler then never
// infers (or compares) a deep zod type per definition. Each exported schema is annotated with
// its interface instead. Letting tsc infer the whole graph cost ~27 s of type-checking.
//
// Object schemas are lazy: importing the generated modules builds no zod object, so a process pays
// only for the definitions it parses or inspects (building all of them at import held ~8 MiB of RSS).
import { z } from "zod";

export type AnySchema = z.ZodType;

/** Forgets a zod schema's precise class; casting from `unknown` costs the compiler nothing. */
function erase(schema: unknown): AnySchema {
  return schema as AnySchema;
}

/** States the output type of a schema composed from these helpers. */
export function typed<T>(schema: AnySchema): z.ZodType<T> {
  return erase(schema) as unknown as z.ZodType<T>;
}

type Shape = Record<string, AnySchema>;

/** The catch-all of every loose object: stateless, so one instance serves them all. */
const KEEP_UNKNOWN_KEYS = z.unknown();

/**
 * A zod object def whose `shape` is built the first time zod reads it, when the object is first
 * parsed or its members are inspected. zod reads a def's own `shape` accessor as it is (and its
 * cycle check stops at one), so an unread shape builds none of the schemas it names.
 */
function deferredShapeDef(shape: () => Shape): object {
  const def = {
    type: "object",
    catchall: KEEP_UNKNOWN_KEYS,
    get shape(): Shape {
      const value = shape();
      Object.defineProperty(def, "shape", { value, enumerable: true });
      return value;
    },
  };
  return def;
}

const SHAPE = Symbol("shape");
interface Unbuilt {
  [SHAPE]?: (() => Shape) | undefined;
}

/**
 * Builds a lazy object schema in place: the zod object is constructed and its own properties
 * (`_zod`, its internals, and `def`, `type`) copied onto the stand-in, which from then on parses
 * and inspects as that object, with no indirection. Its shape waits until zod first reads it: the
 * members of an object being parsed are built, their own members only when reached.
 */
function build(lazy: Unbuilt): AnySchema {
  const shape = lazy[SHAPE];
  if (shape === undefined) throw new Error("schema-kit: a lazy schema has no shape");
  const schema = erase(new z.ZodObject(deferredShapeDef(shape) as never));
  Object.defineProperties(lazy, Object.getOwnPropertyDescriptors(schema));
  // Cleared rather than deleted: a delete would turn every built schema into a slow dictionary object.
  lazy[SHAPE] = undefined;
  return schema;
}

const ZodObjectClass = z.ZodObject as unknown as { prototype: object };
// zod puts a schema class's methods (`safeParse`, `optional`, ...) on its prototype when it builds
// the first instance; build one so that lazy objects find them before any other object is built.
z.looseObject({});

/**
 * The prototype of lazy object schemas: a ZodObject to `instanceof` and to zod's methods, whose
 * instance properties build the schema on first read. zod reaches everything through `_zod`.
 */
const LAZY_OBJECT: object = Object.create(ZodObjectClass.prototype, {
  _zod: { get: lazyRead("_zod"), configurable: true },
  def: { get: lazyRead("def"), configurable: true },
  type: { get: lazyRead("type"), configurable: true },
  shape: {
    get(this: AnySchema): unknown {
      return (this._zod.def as unknown as { shape: Shape }).shape;
    },
    configurable: true,
  },
});

function lazyRead(key: "_zod" | "def" | "type"): (this: Unbuilt) => unknown {
  return function (this: Unbuilt) {
    return build(this)[key];
  };
}

/**
 * An object schema that keeps unknown keys: a parse must never drop fields. `shape` returns its
 * members; it is called at most once, when the schema is first parsed or inspected.
 */
export function looseObject<T>(shape: () => Shape): z.ZodType<T> {
  const lazy = Object.create(LAZY_OBJECT) as Unbuilt;
  lazy[SHAPE] = shape;
  return typed<T>(erase(lazy));
}

// Wrappers take their inner schema as it is: none of them reads it until it is itself parsed.
export const optional = (schema: AnySchema): AnySchema => erase(z.optional(schema));
export const nullable = (schema: AnySchema): AnySchema => erase(z.nullable(schema));
export const array = (items: AnySchema): AnySchema => erase(z.array(items));
export const record = (values: AnySchema): AnySchema => erase(z.record(z.string(), values));
export const union = (members: AnySchema[]): AnySchema => erase(z.union(members));
export const literalUnion = (values: [string, ...string[]]): AnySchema => erase(z.enum(values));
export const string = (): AnySchema => erase(z.string());
export const pattern = (regex: RegExp, message: string): AnySchema => erase(z.string().regex(regex, message));
export const boolean = (): AnySchema => erase(z.boolean());
export const number = (): AnySchema => erase(z.number());
export const int = (): AnySchema => erase(z.int());
export const int32 = (): AnySchema => erase(z.int32());
export const unknown = (): AnySchema => erase(z.unknown());
export const lazy = (getter: () => AnySchema): AnySchema => erase(z.lazy(getter));

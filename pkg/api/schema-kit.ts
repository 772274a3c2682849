// The helpers every generated schema module (pkg/api/generated) is composed with. Generated schemas are composed only
// through these helpers, which take and return the plain `z.ZodType`: the compiler then never
// infers (or compares) a deep zod type per definition. Each exported schema is annotated with
// its interface instead. Letting tsc infer the whole graph cost ~27 s of type-checking.
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

/** An object schema that keeps unknown keys: a parse must never drop fields. */
export function looseObject<T>(shape: Record<string, AnySchema>): z.ZodType<T> {
  return typed<T>(erase(z.looseObject(shape)));
}

export const optional = (schema: AnySchema): AnySchema => erase(schema.optional());
export const nullable = (schema: AnySchema): AnySchema => erase(schema.nullable());
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

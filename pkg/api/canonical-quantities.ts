// Upstream's webhooks decode an object into Go types and send the re-encoded spec back, so every
// resource.Quantity in it leaves as the text Quantity.MarshalJSON writes (`0.5` → "500m", `1.5Gi` →
// "1536Mi"), whether it came in as a JSON number or as a string. The CRD's schema then only ever sees
// strings. This walks an object alongside its generated schema (pkg/api/generated) and does the same
// for every field whose schema is QuantitySchema.
import { z } from "zod";
import { Quantity } from "../defaults/quantity.js";
import { QuantitySchema } from "./generated/k8s.js";

/** Quantity.MarshalJSON's text for a parsable quantity; anything else unchanged (it is refused elsewhere). */
export function canonicalQuantity(raw: unknown): unknown {
  return Quantity.tryParse(raw)?.toString() ?? raw;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mapValues(object: Record<string, unknown>, map: (key: string, value: unknown) => unknown) {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) result[key] = map(key, value);
  return result;
}

function walk(schema: z.ZodType, value: unknown): unknown {
  if (schema === QuantitySchema) return canonicalQuantity(value);
  if (value === undefined || value === null) return value;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return walk(schema.unwrap() as z.ZodType, value);
  }
  if (schema instanceof z.ZodLazy) return walk(schema.unwrap() as z.ZodType, value);
  if (schema instanceof z.ZodArray) {
    return Array.isArray(value) ? value.map((item) => walk(schema.element as z.ZodType, item)) : value;
  }
  if (schema instanceof z.ZodRecord) {
    const values = schema.valueType as z.ZodType;
    return isPlainObject(value) ? mapValues(value, (_key, item) => walk(values, item)) : value;
  }
  if (schema instanceof z.ZodObject) {
    if (!isPlainObject(value)) return value;
    const shape = schema.shape as Record<string, z.ZodType | undefined>;
    // Keys the schema does not name (kept by the loose schemas) are passed through as they are.
    return mapValues(value, (key, item) => {
      const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
      return field ? walk(field, item) : item;
    });
  }
  // Unions in the generated schemas only join scalars (Quantity itself, IntOrString, port numbers).
  return value;
}

/**
 * A copy of `value` with every quantity the schema types as `resource.Quantity` in its canonical text,
 * everything else untouched. Never throws: values of the wrong shape are left for validation to refuse.
 */
export function canonicalizeQuantities<T>(schema: z.ZodType<T>, value: T): T {
  return walk(schema, value) as T;
}

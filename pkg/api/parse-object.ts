// Parses any kubevirt object by its own `apiVersion` and `kind`, with the schema of the reference
// definition that describes that served version (kinds registry).
import type { FieldError } from "./field.js";
import { invalid, required } from "./field.js";
import { definitionFor } from "./kinds.js";
import { isDefinitionName, parseDefinition } from "./parse.js";
import type { ParseResult } from "./parse.js";

/** The reference definition for an object's apiVersion/kind, or an error naming the offending field. */
export function definitionOfObject(input: unknown): { definition: string } | { error: FieldError } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { error: invalid("<root>", input, "must be an object") };
  }
  const { apiVersion, kind } = input as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== "string" || apiVersion === "") return { error: required("apiVersion") };
  if (typeof kind !== "string" || kind === "") return { error: required("kind") };
  const definition = definitionFor(apiVersion, kind);
  if (definition === undefined || !isDefinitionName(definition)) {
    return { error: invalid("kind", kind, `no kubevirt kind ${kind} is served in ${apiVersion}`) };
  }
  return { definition };
}

/** Parses a kubevirt object (VirtualMachine, VirtualMachinePool, ...) by its apiVersion and kind. */
export function parseObject(input: unknown): ParseResult<unknown> & { definition?: string } {
  const found = definitionOfObject(input);
  if ("error" in found) return { ok: false, errors: [found.error] };
  const { definition } = found;
  if (!isDefinitionName(definition)) throw new Error(`unreachable: ${definition}`);
  return { ...parseDefinition(definition, input), definition };
}

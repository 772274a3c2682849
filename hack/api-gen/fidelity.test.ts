// The committed schemas, inspected at run time, against the reference they were generated from:
// same definitions, same property names, optional exactly where the reference does not require,
// the reference's enums, and descriptions carried into the interfaces.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionSchemas } from "../../pkg/api/generated/index.js";
import { locateDefinition } from "./names.js";
import { parseSwagger } from "./swagger.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const repoRoot = join(import.meta.dirname, "..", "..");
const reference = parseSwagger(loadSwagger());
const withProperties = Object.entries(reference.definitions).filter(([, d]) => d.properties !== undefined);

function schemaOf(name: string): z.ZodType {
  const schema: unknown = (definitionSchemas as Record<string, unknown>)[name];
  if (!(schema instanceof z.ZodType)) throw new Error(`no schema for ${name}`);
  return schema;
}

/** The innermost schema under optional / nullable / lazy wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  const inner =
    schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodLazy
      ? (schema.unwrap() as z.ZodType)
      : undefined;
  return inner === undefined ? schema : unwrap(inner);
}

describe("generated schemas follow the reference", () => {
  it("define every reference definition and nothing else", () => {
    expect(Object.keys(definitionSchemas).sort()).toEqual(Object.keys(reference.definitions).sort());
    // upstream's 428 definitions and the 4 of the backup tracker addendum (api/openapi-spec/addenda)
    expect(Object.keys(definitionSchemas)).toHaveLength(432);
  });

  it.each(withProperties)("%s: properties, required and enums", (name, definition) => {
    const schema = schemaOf(name);
    if (!(schema instanceof z.ZodObject)) throw new Error(`${name} is not an object schema`);
    const shape = schema.shape as Record<string, z.ZodType>;
    const properties = definition.properties ?? {};
    expect(Object.keys(shape)).toEqual(Object.keys(properties));
    const required = new Set(definition.required ?? []);
    for (const [property, node] of Object.entries(properties)) {
      const member = shape[property];
      if (member === undefined) throw new Error(`${name}.${property} missing`);
      expect(member.safeParse(undefined).success, `${name}.${property} optional`).toBe(
        !required.has(property),
      );
      const enumValues = node.enum ?? node.items?.enum;
      if (enumValues !== undefined) {
        const inner = unwrap(member);
        const values = inner instanceof z.ZodArray ? unwrap(inner.element as z.ZodType) : inner;
        expect(values instanceof z.ZodEnum ? values.options : undefined, `${name}.${property} enum`).toEqual(
          enumValues,
        );
      }
    }
  });

  it("carry every description into the interfaces as JSDoc", () => {
    const sources = new Map<string, string>();
    const source = (module: string): string => {
      const cached =
        sources.get(module) ?? readFileSync(join(repoRoot, `pkg/api/generated/${module}.ts`), "utf8");
      sources.set(module, cached);
      return cached;
    };
    const missing = Object.entries(reference.definitions).flatMap(([name, definition]) => {
      const text = source(locateDefinition(name).module);
      const descriptions = [
        definition.description,
        ...Object.values(definition.properties ?? {}).map((p) => p.description),
      ];
      return descriptions
        .filter((d): d is string => d !== undefined && d.trim() !== "")
        .map((d) => d.split("\n")[0]?.trimEnd().replaceAll("*/", "*\\/") ?? "")
        .filter((firstLine) => !text.includes(` * ${firstLine}`))
        .map((firstLine) => `${name}: ${firstLine.slice(0, 60)}`);
    });
    expect(missing).toEqual([]);
  });
});

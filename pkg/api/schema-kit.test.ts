// Object schemas are lazy stand-ins: nothing is built until a schema is parsed or inspected, and
// then each shape only once. Parsing, `instanceof` and `.shape` behave as for a plain zod object.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionSchemas } from "./generated/index.js";
import { childSchema, isUnknownMember, parse } from "./parse.js";
import * as kit from "./schema-kit.js";

/** Whether a schema has been built (a built stand-in carries zod's internals as its own property). */
const built = (schema: z.ZodType): boolean => Object.hasOwn(schema, "_zod");

describe("generated schemas", () => {
  it("are not built by importing them", () => {
    const schemas = Object.values(definitionSchemas);
    // Only the few non-object definitions (maps, unions, strings) are plain zod schemas.
    const eager = schemas.filter(built);
    // `: boolean`: an inferred `schema is ZodObject` predicate would cost tsc ~50k types.
    expect(eager.filter((schema): boolean => schema instanceof z.ZodObject)).toEqual([]);
    expect(schemas.length - eager.length).toBeGreaterThan(390);
    expect(built(definitionSchemas["v1.VirtualMachineInstance"])).toBe(false);
  });
});

describe("looseObject", () => {
  interface Node {
    name: string;
    child?: Node;
    leaf?: Leaf;
  }
  interface Leaf {
    size?: number;
  }

  function fixture() {
    const calls = { node: 0, leaf: 0 };
    const LeafSchema: z.ZodType<Leaf> = kit.looseObject<Leaf>(() => {
      calls.leaf++;
      return { size: kit.optional(kit.int32()) };
    });
    // Refers to itself and to a schema defined before it, as generated modules do across files.
    const NodeSchema: z.ZodType<Node> = kit.looseObject<Node>(() => {
      calls.node++;
      return { name: kit.string(), child: kit.optional(NodeSchema), leaf: kit.optional(LeafSchema) };
    });
    return { calls, NodeSchema, LeafSchema };
  }

  it("builds a shape on first parse, once, and not the shapes of members that were absent", () => {
    const { calls, NodeSchema, LeafSchema } = fixture();
    expect(calls).toEqual({ node: 0, leaf: 0 });
    expect(built(NodeSchema)).toBe(false);

    expect(NodeSchema.parse({ name: "a", child: { name: "b" }, extra: 1 })).toEqual({
      name: "a",
      child: { name: "b" },
      extra: 1,
    });
    expect(calls).toEqual({ node: 1, leaf: 0 });
    expect(built(NodeSchema)).toBe(true);
    expect(NodeSchema.safeParse({ name: "c", leaf: { size: 2 } }).success).toBe(true);
    expect(NodeSchema.safeParse({ name: "d", leaf: { size: 2 } }).success).toBe(true);
    expect(calls).toEqual({ node: 1, leaf: 1 });
    expect(built(LeafSchema)).toBe(true);
  });

  it("reports issues with their paths through nested and recursive members", () => {
    const { NodeSchema } = fixture();
    const result = NodeSchema.safeParse({ name: "a", child: { child: { name: 1 } }, leaf: { size: 1.5 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([
      ["child", "name"],
      ["child", "child", "name"],
      ["leaf", "size"],
    ]);
    expect(parse(NodeSchema, { name: "a", child: { name: true } })).toEqual({
      ok: false,
      errors: [expect.objectContaining({ field: "child.name", type: "FieldValueTypeInvalid" })],
    });
  });

  it("is a zod object to introspection before and after it is built", () => {
    const first = fixture();
    expect(first.NodeSchema instanceof z.ZodObject).toBe(true);
    const second = fixture();
    expect(Object.keys((second.NodeSchema as unknown as z.ZodObject).shape)).toEqual([
      "name",
      "child",
      "leaf",
    ]);
    expect(second.calls).toEqual({ node: 1, leaf: 0 });
    const third = fixture();
    expect(childSchema(third.NodeSchema, "child")).toBeInstanceOf(z.ZodOptional);
    expect(isUnknownMember(third.NodeSchema, "extra")).toBe(true);
    expect(isUnknownMember(third.NodeSchema, "leaf")).toBe(false);
    expect(third.NodeSchema.optional().safeParse(undefined).success).toBe(true);
  });
});

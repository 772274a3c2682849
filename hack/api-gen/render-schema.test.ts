import { describe, expect, it } from "vitest";
import type { RenderContext } from "./render-schema.js";
import { jsDoc, renderMembers, renderSchema } from "./render-schema.js";
import type { SchemaNode } from "./swagger.js";

function context(module = "v1"): RenderContext {
  return {
    module,
    importedModules: new Set(),
    definitions: {
      "v1.Disk": { type: "object", properties: { name: { type: "string" } } },
      "v1.VirtualMachineStatus": { type: "object", nullable: true, properties: {} },
      "k8s.io.apimachinery.pkg.api.resource.Quantity": { type: ["string", "integer", "number"] },
    },
  };
}

describe("renderSchema", () => {
  it.each<[string, SchemaNode, string, string]>([
    ["string", { type: "string" }, "string", "kit.string()"],
    ["boolean", { type: "boolean" }, "boolean", "kit.boolean()"],
    ["int32", { type: "integer", format: "int32" }, "number", "kit.int32()"],
    ["int64", { type: "integer", format: "int64" }, "number", "kit.int()"],
    ["double", { type: "number", format: "double" }, "number", "kit.number()"],
    [
      "enum",
      { type: "string", enum: ["Always", "Never"] },
      '"Always" | "Never"',
      'kit.literalUnion(["Always", "Never"])',
    ],
    ["nullable time", { type: ["string", "null"] }, "string | null", "kit.nullable(kit.string())"],
    [
      "int-or-string",
      { type: "string", format: "int-or-string" },
      "string | number",
      "kit.union([kit.string(), kit.int32()])",
    ],
    [
      "string or number",
      { type: ["string", "number"] },
      "string | number",
      "kit.union([kit.string(), kit.number()])",
    ],
    ["string list", { type: "array", items: { type: "string" } }, "string[]", "kit.array(kit.string())"],
    [
      "enum list",
      { type: "array", items: { type: "string", enum: ["A", "B"] } },
      '("A" | "B")[]',
      'kit.array(kit.literalUnion(["A", "B"]))',
    ],
    [
      "string map",
      { type: "object", additionalProperties: { type: "string" } },
      "Record<string, string>",
      "kit.record(kit.string())",
    ],
    ["untyped object", { type: "object" }, "Record<string, unknown>", "kit.record(kit.unknown())"],
    ["no type", {}, "unknown", "kit.unknown()"],
    ["same-module ref", { $ref: "#/definitions/v1.Disk" }, "Disk", "DiskSchema"],
    [
      "ref list",
      { type: "array", items: { $ref: "#/definitions/v1.Disk" } },
      "Disk[]",
      "kit.array(DiskSchema)",
    ],
    [
      "nullable definition",
      { $ref: "#/definitions/v1.VirtualMachineStatus" },
      "VirtualMachineStatus | null",
      "kit.nullable(VirtualMachineStatusSchema)",
    ],
    [
      "cross-module ref map",
      {
        type: "object",
        additionalProperties: { $ref: "#/definitions/k8s.io.apimachinery.pkg.api.resource.Quantity" },
      },
      "Record<string, k8s.Quantity>",
      "kit.record(k8s.QuantitySchema)",
    ],
  ])("%s", (_, node, ts, zod) => {
    const ctx = context();
    expect(renderSchema(node, ctx)).toMatchObject({ ts, zod });
  });

  it("records cross-module imports and flags schema references", () => {
    const ctx = context();
    const rendered = renderSchema(
      { $ref: "#/definitions/k8s.io.apimachinery.pkg.api.resource.Quantity" },
      ctx,
    );
    expect(rendered.refersToSchema).toBe(true);
    expect([...ctx.importedModules]).toEqual(["k8s"]);
    expect(renderSchema({ type: "string" }, ctx).refersToSchema).toBe(false);
  });

  it("rejects what it cannot express", () => {
    expect(() => renderSchema({ $ref: "#/definitions/v1.Missing" }, context())).toThrow(
      /unknown definition v1.Missing/,
    );
    expect(() => renderSchema({ $ref: "other.json#/x" }, context())).toThrow(/unsupported \$ref/);
    expect(() => renderSchema({ type: "file" }, context())).toThrow(/unsupported schema type "file"/);
  });
});

describe("renderMembers", () => {
  it("keeps reference order, marks optional members, names references directly", () => {
    const members = renderMembers(
      {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", description: "Name of the disk." },
          "x-odd key": { type: "boolean" },
          disk: { $ref: "#/definitions/v1.Disk" },
        },
      },
      context(),
    );
    expect(members).toEqual([
      { tsMember: "/**\n * Name of the disk.\n */\nname: string;", zodMember: "name: kit.string()," },
      { tsMember: '"x-odd key"?: boolean;', zodMember: '"x-odd key": kit.optional(kit.boolean()),' },
      { tsMember: "disk?: Disk;", zodMember: "disk: kit.optional(DiskSchema)," },
    ]);
  });
});

describe("jsDoc", () => {
  it("keeps every line and cannot be closed early by the text", () => {
    expect(jsDoc("First line.\n\n\tIndented */ here  ")).toBe(
      " /**\n * First line.\n *\n * \tIndented *\\/ here\n */\n".slice(1),
    );
    expect(jsDoc(undefined)).toBe("");
    expect(jsDoc("  ")).toBe("");
  });
});

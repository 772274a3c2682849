import { describe, expect, it } from "vitest";
import { QUANTITY_PATTERN, structuralSchemaFor } from "./crd-schema.js";
import type { JSONSchemaProps } from "./crd-types.js";
import { parseReferenceDocument } from "../../../../api/openapi-reference.js";
import type { ReferenceSchema } from "../../../../api/openapi-reference.js";

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

/** A reference document whose `test.Root` has the given properties, next to `extra` definitions. */
function docWith(properties: Record<string, ReferenceSchema>, extra: Record<string, ReferenceSchema> = {}) {
  return parseReferenceDocument({
    swagger: "2.0",
    definitions: {
      "test.Root": { description: "Root is a test kind.", type: "object", properties, required: ["spec"] },
      "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
        type: "object",
        properties: { name: { type: "string", description: "Name." } },
      },
      "k8s.io.apimachinery.pkg.api.resource.Quantity": {
        description: "Quantity is a fixed-point representation of a number.",
        type: ["string", "integer", "number"],
      },
      "k8s.io.apimachinery.pkg.util.intstr.IntOrString": {
        description: "IntOrString is a type that can hold an int32 or a string.",
        type: "string",
        format: "int-or-string",
      },
      "k8s.io.apimachinery.pkg.runtime.RawExtension": {
        description: "RawExtension holds anything.",
        type: "object",
      },
      ...extra,
    },
  });
}

function propertyOf(schema: JSONSchemaProps, path: string): JSONSchemaProps {
  let node: JSONSchemaProps | undefined = schema;
  for (const segment of path.split(".")) {
    node =
      segment === "[]"
        ? node?.items
        : segment === "{}"
          ? node?.additionalProperties
          : node?.properties?.[segment];
  }
  if (node === undefined) throw new Error(`no schema at ${path}`);
  return node;
}

describe("structuralSchemaFor", () => {
  it("keeps the root's description and required list and reduces top-level metadata to type: object", () => {
    const doc = docWith({
      metadata: {
        ...ref("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
        description: "Standard metadata.",
      },
      spec: { type: "object", properties: { a: { type: "string" } } },
    });
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(schema.description).toBe("Root is a test kind.");
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["spec"]);
    expect(schema.properties?.metadata).toEqual({ type: "object" });
  });

  it("inlines $refs, a field's own description winning over its type's", () => {
    const doc = docWith(
      {
        withOwn: { ...ref("test.Inner"), description: "The field's words." },
        withoutOwn: ref("test.Inner"),
        nestedMeta: ref("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
      },
      {
        "test.Inner": {
          description: "Inner is the type's words.",
          type: "object",
          properties: { n: { type: "integer", format: "int32", description: "N." } },
          required: ["n", "gone"],
        },
      },
    );
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(propertyOf(schema, "withOwn")).toEqual({
      description: "The field's words.",
      type: "object",
      properties: { n: { description: "N.", type: "integer", format: "int32" } },
      required: ["n"],
    });
    expect(propertyOf(schema, "withoutOwn").description).toBe("Inner is the type's words.");
    // ObjectMeta below the root is an ordinary field and keeps its structure.
    expect(propertyOf(schema, "nestedMeta.name")).toEqual({ description: "Name.", type: "string" });
  });

  it("spells Quantity and IntOrString as int-or-string, as Kubernetes CRDs do", () => {
    const doc = docWith({
      memory: { ...ref("k8s.io.apimachinery.pkg.api.resource.Quantity"), description: "Memory." },
      requests: {
        type: "object",
        additionalProperties: ref("k8s.io.apimachinery.pkg.api.resource.Quantity"),
      },
      port: ref("k8s.io.apimachinery.pkg.util.intstr.IntOrString"),
    });
    const schema = structuralSchemaFor(doc, "test.Root");
    const intOrString = {
      anyOf: [{ type: "integer" }, { type: "string" }],
      "x-kubernetes-int-or-string": true,
    };
    expect(propertyOf(schema, "memory")).toEqual({
      ...intOrString,
      pattern: QUANTITY_PATTERN,
      description: "Memory.",
    });
    expect(propertyOf(schema, "requests")).toEqual({
      type: "object",
      additionalProperties: { ...intOrString, pattern: QUANTITY_PATTERN },
    });
    expect(propertyOf(schema, "port")).toEqual(intOrString);
    expect(new RegExp(QUANTITY_PATTERN).test("1Gi")).toBe(true);
    expect(new RegExp(QUANTITY_PATTERN).test("1 GB")).toBe(false);
  });

  it("preserves unknown fields of RawExtension and undescribed objects, but not of empty structs", () => {
    const doc = docWith(
      {
        raw: ref("k8s.io.apimachinery.pkg.runtime.RawExtension"),
        loose: { type: "object", description: "Anything." },
        marker: ref("test.Marker"),
      },
      { "test.Marker": { description: "Marker has no fields.", type: "object" } },
    );
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(propertyOf(schema, "raw")).toEqual({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(propertyOf(schema, "loose")).toEqual({
      description: "Anything.",
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(propertyOf(schema, "marker")).toEqual({ description: "Marker has no fields.", type: "object" });
  });

  it("cuts a recursive definition where it repeats, with x-kubernetes-preserve-unknown-fields", () => {
    const doc = docWith(
      { tree: ref("test.Node") },
      {
        "test.Node": {
          description: "Node of a tree.",
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: ref("test.Node") } },
        },
      },
    );
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(propertyOf(schema, "tree.name")).toEqual({ type: "string" });
    expect(propertyOf(schema, "tree.children.[]")).toEqual({
      description: "Node of a tree.",
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  it("turns a [type, null] list into a nullable type and keeps enums and formats", () => {
    const doc = docWith({
      when: { type: ["string", "null"] },
      mode: { type: "string", enum: ["a", "b"], description: "Mode." },
      data: { type: "string", format: "byte" },
    });
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(propertyOf(schema, "when")).toEqual({ type: "string", nullable: true });
    expect(propertyOf(schema, "mode")).toEqual({ type: "string", enum: ["a", "b"], description: "Mode." });
    expect(propertyOf(schema, "data")).toEqual({ type: "string", format: "byte" });
  });

  it("carries list and map markers, drops defaults and patch-strategy extensions", () => {
    const doc = docWith(
      {
        ports: {
          type: "array",
          items: { ...ref("test.Port"), default: {} } as ReferenceSchema,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "x-kubernetes-patch-strategy": "merge",
        } as ReferenceSchema,
        tags: {
          type: "array",
          items: { type: "string", default: "" } as ReferenceSchema,
          "x-kubernetes-list-type": "set",
        },
        selector: ref("test.Selector"),
        name: { type: "string", default: "" } as ReferenceSchema,
      },
      {
        "test.Port": { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        "test.Selector": {
          type: "object",
          properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
          "x-kubernetes-map-type": "atomic",
        },
      },
    );
    const schema = structuralSchemaFor(doc, "test.Root");
    expect(propertyOf(schema, "ports")).toEqual({
      type: "array",
      items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    expect(propertyOf(schema, "tags")).toEqual({
      type: "array",
      items: { type: "string" },
      "x-kubernetes-list-type": "set",
    });
    expect(propertyOf(schema, "selector")["x-kubernetes-map-type"]).toBe("atomic");
    expect(propertyOf(schema, "selector.labels")).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
    expect(propertyOf(schema, "name")).toEqual({ type: "string" });
  });

  it("refuses a definition that is not an object, and a dangling $ref", () => {
    expect(() => structuralSchemaFor(docWith({}), "k8s.io.apimachinery.pkg.util.intstr.IntOrString")).toThrow(
      /not an object definition/,
    );
    expect(() => structuralSchemaFor(docWith({ x: ref("test.Missing") }), "test.Root")).toThrow(
      /test.Missing/,
    );
  });
});

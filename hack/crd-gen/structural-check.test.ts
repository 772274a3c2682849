import { describe, expect, it } from "vitest";
import type { CustomResourceDefinition } from "../../pkg/virt-operator/resource/generate/components/crd-types.js";
import { allCustomResourceDefinitions } from "../../pkg/virt-operator/resource/generate/components/crds.js";
import { checkCustomResourceDefinition } from "./crd-check.js";
import { checkStructuralSchema } from "./structural-check.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const intOrString = { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true };

/** A valid root around `field`, so each row breaks exactly one rule. */
const rootWith = (field: unknown) => ({
  type: "object",
  properties: { metadata: { type: "object" }, spec: { type: "object", properties: { field } } },
});
const mapList = (items: unknown) => ({
  type: "array",
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["name"],
  items,
});

describe("checkStructuralSchema", () => {
  it.each([
    ["a typed scalar", { type: "string", description: "d" }],
    ["an int-or-string", intOrString],
    ["a preserve-unknown node without type", { "x-kubernetes-preserve-unknown-fields": true }],
    ["a map", { type: "object", additionalProperties: { type: "string" } }],
    ["a map list", mapList({ type: "object", properties: { name: { type: "string" } }, required: ["name"] })],
    ["a set of strings", { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" }],
    ["an atomic struct", { type: "object", properties: {}, "x-kubernetes-map-type": "atomic" }],
  ])("accepts %s", (_, field) => {
    expect(checkStructuralSchema(rootWith(field), { statusSubresource: true })).toEqual([]);
  });

  it.each([
    ["a $ref", { $ref: "#/definitions/x" }, "$ref: not supported"],
    ["a missing type", { properties: { a: { type: "string" } } }, "type: must not be empty"],
    ["a type list", { type: ["string", "null"] }, "type: unsupported value"],
    ["properties with additionalProperties", { type: "object", properties: {}, additionalProperties: { type: "string" } }, "mutual exclusive"],
    ["additionalProperties: true", { type: "object", additionalProperties: true }, "additionalProperties: must be a schema"],
    ["an array without items", { type: "array" }, "items: must be specified"],
    ["properties on a string", { type: "string", properties: {} }, "must only be used if type is object"],
    ["a swagger-only extension", { type: "string", "x-kubernetes-patch-strategy": "merge" }, "x-kubernetes-patch-strategy: unknown field"],
    ["a type beside int-or-string", { ...intOrString, type: "string" }, "must be empty when x-kubernetes-int-or-string"],
    ["other int-or-string alternatives", { "x-kubernetes-int-or-string": true, anyOf: [{ type: "number" }, { type: "string" }] }, "anyOf: must be [{type: integer}, {type: string}]"],
    ["a description in a value validation", { type: "string", anyOf: [{ description: "x" }] }, "anyOf[0].description: must not be set"],
    ["a type in a value validation", { type: "string", anyOf: [{ type: "string" }] }, "anyOf[0].type: must not be set"],
    ["preserve-unknown-fields false", { type: "object", "x-kubernetes-preserve-unknown-fields": false }, "must be true or undefined"],
    ["a list type on an object", { type: "object", "x-kubernetes-list-type": "atomic" }, "must be array if x-kubernetes-list-type"],
    ["an unknown list type", { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "bag" }, "x-kubernetes-list-type: unsupported"],
    ["map keys without list type map", { type: "array", items: { type: "string" }, "x-kubernetes-list-map-keys": ["a"] }, "must be map if list-map-keys"],
    ["a map list without keys", { type: "array", items: { type: "object" }, "x-kubernetes-list-type": "map" }, "list-map-keys: must not be empty"],
    ["a map list key that is optional", mapList({ type: "object", properties: { name: { type: "string" } } }), "must have a default or be a required property"],
    ["a map list key that is an object", mapList({ type: "object", properties: { name: { type: "object" } }, required: ["name"] }), "name.type: must be a scalar type"],
    ["a map list key that is no property", mapList({ type: "object", properties: {} }), "name is not a property"],
    ["a map list of strings", mapList({ type: "string" }), "items.type: must be object"],
    ["nullable map list items", mapList({ type: "object", nullable: true, properties: { name: { type: "string" } }, required: ["name"] }), "items.nullable: cannot be nullable"],
    ["a set of granular objects", { type: "array", items: { type: "object" }, "x-kubernetes-list-type": "set" }, "must be atomic as item of a list with x-kubernetes-list-type=set"],
    ["a map type on a string", { type: "string", "x-kubernetes-map-type": "atomic" }, "must be object if x-kubernetes-map-type"],
    ["an unknown map type", { type: "object", "x-kubernetes-map-type": "loose" }, "x-kubernetes-map-type: unsupported"],
    ["uniqueItems", { type: "array", items: { type: "string" }, uniqueItems: true }, "uniqueItems: cannot be true"],
  ])("rejects %s", (_, field, message) => {
    const errors = checkStructuralSchema(rootWith(field), { statusSubresource: false });
    expect(errors.join("\n")).toContain(message);
    expect(errors.every((e) => e.startsWith("openAPIV3Schema.properties.spec.properties.field"))).toBe(true);
  }); // prettier-ignore

  it.each([
    ["a non-object root", { type: "array", items: { type: "string" } }, false, "openAPIV3Schema.type: must be object"],
    ["a nullable root", { type: "object", nullable: true }, false, "openAPIV3Schema.nullable: cannot be true"],
    ["root metadata with fields", { type: "object", properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } } }, false, "only name and generateName"],
    ["root metadata with a description", { type: "object", properties: { metadata: { type: "object", description: "x" } } }, false, "metadata.description: only type and properties"],
    ["a default in root metadata", { type: "object", properties: { metadata: { type: "object", properties: { name: { type: "string", default: "x" } } } } }, false, "default: not allowed in top-level metadata"],
    ["a non-string root kind", { type: "object", properties: { kind: { type: "integer" } } }, false, "kind.type: must be string"],
    ["root additionalProperties with status", { type: "object", additionalProperties: { type: "string" } }, true, "not allowed at the root when the status subresource"],
  ])("rejects %s", (_, schema, statusSubresource, message) => {
    expect(checkStructuralSchema(schema, { statusSubresource }).join("\n")).toContain(message);
  }); // prettier-ignore
});

describe("checkCustomResourceDefinition", () => {
  const valid = (): CustomResourceDefinition => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "things.example.io", labels: {} },
    spec: {
      group: "example.io",
      scope: "Namespaced",
      names: {
        kind: "Thing",
        listKind: "ThingList",
        plural: "things",
        singular: "thing",
        shortNames: ["th"],
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object" } },
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" }],
        },
      ],
    },
  });

  it("accepts a valid CRD", () => {
    expect(checkCustomResourceDefinition(valid())).toEqual([]);
  });

  it.each<[string, (crd: CustomResourceDefinition) => void, string]>([
    ["a name that is not plural.group", (c) => (c.metadata.name = "thing.example.io"), "metadata.name"],
    ["an unknown scope", (c) => (c.spec.scope = "Global" as never), "spec.scope"],
    ["an upper-case short name", (c) => (c.spec.names.shortNames = ["Th"]), "spec.names.shortNames[0]"],
    ["a listKind equal to kind", (c) => (c.spec.names.listKind = "Thing"), "spec.names.listKind"],
    ["no storage version", (c) => (c.spec.versions[0]!.storage = false), "exactly one version marked as storage"],
    ["a duplicate version", (c) => c.spec.versions.push({ ...c.spec.versions[0]!, storage: false }), "name: must be unique"],
    ["a warning on a current version", (c) => (c.spec.versions[0]!.deprecationWarning = "old"), "only be set for deprecated"],
    ["an unknown column type", (c) => (c.spec.versions[0]!.additionalPrinterColumns![0]!.type = "time" as never), "additionalPrinterColumns[0].type"],
    ["a column path without a dot", (c) => (c.spec.versions[0]!.additionalPrinterColumns![0]!.jsonPath = "status"), "jsonPath"],
    ["a scale path outside spec", (c) => (c.spec.versions[0]!.subresources = { scale: { specReplicasPath: ".status.r", statusReplicasPath: ".status.r" } }), "specReplicasPath"],
    ["a missing schema", (c) => (c.spec.versions[0]!.schema = {} as never), "openAPIV3Schema: Required value"],
    ["a broken schema", (c) => (c.spec.versions[0]!.schema.openAPIV3Schema = { type: "array" } as never), "schema.openAPIV3Schema.type"],
    ["a CRD too big for etcd", (c) => (c.spec.versions[0]!.schema.openAPIV3Schema = { type: "object", description: "x".repeat(2_000_000) } as never), "exceed etcd"],
  ])("rejects %s", (_, breakIt, message) => {
    const crd = valid();
    breakIt(crd);
    expect(checkCustomResourceDefinition(crd).join("\n")).toContain(message);
  }); // prettier-ignore
});

describe("every generated CRD", () => {
  // The rendered YAML reads back as exactly these objects (index.test.ts), so checking them checks the files.
  const swagger: unknown = loadSwagger();
  const crds = allCustomResourceDefinitions(swagger).map((crd) => [crd.metadata.name, crd] as const);

  it.each(crds)("%s passes the apiserver's static checks", (_, crd) => {
    expect(checkCustomResourceDefinition(JSON.parse(JSON.stringify(crd)))).toEqual([]);
  });
});

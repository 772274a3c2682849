// Builds a structural openAPIV3Schema (the form the apiserver demands of a CRD) from a definition of the
// reference document: every $ref inlined, descriptions, types, formats, enums and required lists kept,
// list/map markers carried over, and the reference's serialization types mapped the way Kubernetes
// CRDs spell them.
import type { JSONSchemaProps } from "./crd-types.js";
import { lookupDefinition, referenceTypeOf, refTarget } from "../../../../api/openapi-reference.js";
import type { ReferenceDocument, ReferenceSchema } from "../../../../api/openapi-reference.js";

const QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
const INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";

/** Quantity's wire format, as the apiserver's own CRD generators emit it. */
export const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** Types that carry arbitrary JSON through custom marshalling: their content is not described. */
const FREE_FORM_DEFINITIONS = new Set([
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
]);

/** Types whose own description documents Go serialization, not the field that uses them. */
const SERIALIZATION_TYPES = new Set([
  QUANTITY,
  INT_OR_STRING,
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
  ...FREE_FORM_DEFINITIONS,
]);

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

type StructuralType = NonNullable<JSONSchemaProps["type"]>;

interface BuildContext {
  doc: ReferenceDocument;
  /** Definitions being expanded on the current path; a repeat is a recursion and is cut. */
  expanding: readonly string[];
}

/**
 * The CRD schema of a kind whose reference definition is `definition`. The top-level `metadata` is
 * only `type: object`: the apiserver validates ObjectMeta itself and refuses anything more.
 */
export function structuralSchemaFor(doc: ReferenceDocument, definition: string): JSONSchemaProps {
  const root = definitionNode(definition, { doc, expanding: [] });
  if (root.type !== "object" || root.properties === undefined) {
    throw new Error(`${definition} is not an object definition and cannot be a CRD root`);
  }
  delete root.nullable;
  root.properties = { ...root.properties, metadata: { type: "object" } };
  return root;
}

function definitionNode(name: string, ctx: BuildContext): JSONSchemaProps {
  const def = lookupDefinition(ctx.doc, name);
  const description = SERIALIZATION_TYPES.has(name) ? undefined : def.description;
  if (name === QUANTITY) return withDescription(quantityNode(), description);
  if (FREE_FORM_DEFINITIONS.has(name)) return withDescription(freeFormObject(), description);
  // Only object definitions can contain themselves.
  if (ctx.expanding.includes(name)) return withDescription(freeFormObject(), description);
  const inner = { ...ctx, expanding: [...ctx.expanding, name] };
  // An empty struct (e.g. `bridge: {}`) is a typed object without fields, not free-form data.
  if (def.type === "object" && def.properties === undefined && def.additionalProperties === undefined) {
    return withDescription(objectExtras(def, { type: "object" }), description);
  }
  return withDescription(schemaNode(def, inner), description);
}

/** A property, item or map value of the reference: a `$ref` or an inline schema. */
function schemaNode(schema: ReferenceSchema, ctx: BuildContext): JSONSchemaProps {
  if (schema.$ref !== undefined) {
    const resolved = definitionNode(refTarget(schema.$ref), ctx);
    return withDescription(resolved, schema.description ?? resolved.description);
  }
  if (referenceTypeOf(schema).intOrString) return withDescription(intOrStringNode(), schema.description);
  const type = structuralType(schema);
  if (type === "array") return withDescription(arrayNode(schema, ctx), schema.description);
  if (type === "object") return withDescription(objectNode(schema, ctx), schema.description);
  if (type === undefined) return withDescription(freeFormObject(), schema.description);
  return withDescription(scalarNode(schema, type), schema.description);
}

function objectNode(schema: ReferenceSchema, ctx: BuildContext): JSONSchemaProps {
  const { properties, additionalProperties } = schema;
  if (properties !== undefined) {
    const built: Record<string, JSONSchemaProps> = {};
    for (const [name, property] of Object.entries(properties)) built[name] = schemaNode(property, ctx);
    const node: JSONSchemaProps = { type: "object", properties: built };
    const required = (schema.required ?? []).filter((name) => name in properties);
    if (required.length > 0) node.required = required;
    return objectExtras(schema, node);
  }
  if (typeof additionalProperties === "object" && Object.keys(additionalProperties).length > 0) {
    return objectExtras(schema, {
      type: "object",
      additionalProperties: schemaNode(additionalProperties, ctx),
    });
  }
  // No declared structure: a free-form object whose content must survive pruning.
  return objectExtras(schema, freeFormObject());
}

function objectExtras(schema: ReferenceSchema, node: JSONSchemaProps): JSONSchemaProps {
  if (referenceTypeOf(schema).nullable) node.nullable = true;
  const mapType = schema["x-kubernetes-map-type"];
  if (mapType === "atomic" || mapType === "granular") node["x-kubernetes-map-type"] = mapType;
  return node;
}

function arrayNode(schema: ReferenceSchema, ctx: BuildContext): JSONSchemaProps {
  const node: JSONSchemaProps = {
    type: "array",
    items: schema.items === undefined ? freeFormObject() : schemaNode(schema.items, ctx),
  };
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "atomic" || listType === "set" || listType === "map")
    node["x-kubernetes-list-type"] = listType;
  const mapKeys = schema["x-kubernetes-list-map-keys"];
  if (listType === "map" && mapKeys !== undefined) node["x-kubernetes-list-map-keys"] = [...mapKeys];
  if (referenceTypeOf(schema).nullable) node.nullable = true;
  return node;
}

function scalarNode(schema: ReferenceSchema, type: StructuralType): JSONSchemaProps {
  const node: JSONSchemaProps = { type };
  if (schema.format !== undefined) node.format = schema.format;
  if (schema.enum !== undefined) node.enum = [...schema.enum];
  if (referenceTypeOf(schema).nullable) node.nullable = true;
  return node;
}

function structuralType(schema: ReferenceSchema): StructuralType | undefined {
  const { type } = referenceTypeOf(schema);
  if (type !== undefined) {
    if (type === "object" || type === "array" || SCALAR_TYPES.has(type)) return type as StructuralType;
    throw new Error(`unsupported schema type ${type}`);
  }
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return "object";
  return undefined;
}

function intOrStringNode(): JSONSchemaProps {
  return { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true };
}

function quantityNode(): JSONSchemaProps {
  return { ...intOrStringNode(), pattern: QUANTITY_PATTERN };
}

function freeFormObject(): JSONSchemaProps {
  return { type: "object", ...preserveUnknown() };
}

function preserveUnknown(): Pick<JSONSchemaProps, "x-kubernetes-preserve-unknown-fields"> {
  return { "x-kubernetes-preserve-unknown-fields": true };
}

function withDescription(node: JSONSchemaProps, description: string | undefined): JSONSchemaProps {
  const copy = { ...node };
  if (description === undefined || description === "") delete copy.description;
  else copy.description = description;
  return copy;
}

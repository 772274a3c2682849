// The apiserver's rules for a CRD's openAPIV3Schema (apiextensions-apiserver: structural schema, list and
// map markers, root restrictions), checked on plain JSON so a rendered-and-reparsed CRD can be verified
// before any apiserver sees it. Each violation reads `<path>: <message>`.
import { isObject, isStringArray } from "./json.js";
import type { JsonObject } from "./json.js";

/** The keys of apiextensions/v1 JSONSchemaProps; anything else is an unknown field to the apiserver. */
const SCHEMA_KEYS = new Set([
  "id", "$schema", "$ref", "description", "type", "format", "title", "default", "maximum", "exclusiveMaximum",
  "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
  "multipleOf", "enum", "maxProperties", "minProperties", "required", "items", "allOf", "oneOf", "anyOf", "not",
  "properties", "additionalProperties", "patternProperties", "dependencies", "additionalItems", "definitions",
  "externalDocs", "example", "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
  "x-kubernetes-validations",
]); // prettier-ignore

const UNSUPPORTED_KEYS = [
  "$ref",
  "id",
  "definitions",
  "patternProperties",
  "dependencies",
  "additionalItems",
];
const OPENAPI_TYPES = new Set(["object", "array", "string", "integer", "number", "boolean"]);

/** Keys a value validation (inside anyOf/allOf/oneOf/not) must not carry. */
const NOT_IN_VALUE_VALIDATION = [
  "description", "type", "default", "nullable", "additionalProperties", "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string", "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
]; // prettier-ignore

/** With the status subresource on, the root may only use these (apiserver's allowedFieldsAtRootSchema). */
const ROOT_KEYS_WITH_STATUS = new Set([
  "description", "type", "format", "title", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "required", "items",
  "properties", "externalDocs", "example", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations",
]); // prettier-ignore

interface NodeContext {
  path: string;
  /** Inside anyOf/allOf/oneOf/not: only value validations are allowed. */
  valueValidation: boolean;
  /** The int-or-string alternatives `anyOf: [{type: integer}, {type: string}]` may name a type. */
  typeAllowed?: boolean;
  /** Under the root's `metadata`: no defaults. */
  inRootMetadata: boolean;
}

export function checkStructuralSchema(schema: unknown, opts: { statusSubresource: boolean }): string[] {
  const errors: string[] = [];
  const at = "openAPIV3Schema";
  if (!isObject(schema)) return [`${at}: must be an object`];
  if (schema.type !== "object") errors.push(`${at}.type: must be object at the root`);
  if (schema.nullable === true) errors.push(`${at}.nullable: cannot be true at the root`);
  if (opts.statusSubresource) {
    for (const key of Object.keys(schema).filter((k) => !ROOT_KEYS_WITH_STATUS.has(k))) {
      errors.push(`${at}.${key}: not allowed at the root when the status subresource is enabled`);
    }
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  if ("metadata" in properties)
    errors.push(...checkRootMetadata(properties.metadata, `${at}.properties.metadata`));
  for (const field of ["apiVersion", "kind"].filter((f) => f in properties)) {
    const declared = properties[field];
    if (!isObject(declared) || declared.type !== "string") {
      errors.push(`${at}.properties.${field}.type: must be string at the root`);
    }
  }
  checkNode(schema, { path: at, valueValidation: false, inRootMetadata: false }, errors);
  return errors;
}

/** At the root, metadata may only restrict name and generateName. */
function checkRootMetadata(metadata: unknown, path: string): string[] {
  if (!isObject(metadata)) return [`${path}: must be an object`];
  const errors: string[] = [];
  for (const key of Object.keys(metadata).filter((k) => k !== "type" && k !== "properties")) {
    errors.push(`${path}.${key}: only type and properties of name/generateName are allowed in root metadata`);
  }
  if (metadata.type !== undefined && metadata.type !== "object") errors.push(`${path}.type: must be object`);
  const nested = isObject(metadata.properties) ? Object.keys(metadata.properties) : [];
  for (const key of nested.filter((k) => k !== "name" && k !== "generateName")) {
    errors.push(`${path}.properties.${key}: only name and generateName may be restricted`);
  }
  return errors;
}

function checkNode(node: unknown, ctx: NodeContext, errors: string[]): void {
  const { path } = ctx;
  if (!isObject(node)) {
    errors.push(`${path}: must be a schema object`);
    return;
  }
  for (const key of Object.keys(node).filter((k) => !SCHEMA_KEYS.has(k)))
    errors.push(`${path}.${key}: unknown field`);
  for (const key of UNSUPPORTED_KEYS.filter((k) => k in node)) errors.push(`${path}.${key}: not supported`);
  if (node.uniqueItems === true) errors.push(`${path}.uniqueItems: cannot be true`);
  if (node["x-kubernetes-preserve-unknown-fields"] === false) {
    errors.push(`${path}.x-kubernetes-preserve-unknown-fields: must be true or undefined`);
  }
  if (ctx.inRootMetadata && "default" in node)
    errors.push(`${path}.default: not allowed in top-level metadata`);
  checkType(node, ctx, errors);
  checkShape(node, path, errors);
  checkListMarkers(node, path, errors);
  checkMapMarker(node, path, errors);
  checkChildren(node, ctx, errors);
}

function checkType(node: JsonObject, ctx: NodeContext, errors: string[]): void {
  const { path } = ctx;
  const intOrString = node["x-kubernetes-int-or-string"] === true;
  if (ctx.valueValidation) {
    for (const key of NOT_IN_VALUE_VALIDATION.filter((k) => k in node)) {
      if (key === "type" && ctx.typeAllowed === true) continue;
      errors.push(`${path}.${key}: must not be set inside a value validation`);
    }
    return;
  }
  if (node.type === undefined) {
    if (!intOrString && node["x-kubernetes-preserve-unknown-fields"] !== true) {
      errors.push(`${path}.type: must not be empty for specified object fields`);
    }
    return;
  }
  if (typeof node.type !== "string" || !OPENAPI_TYPES.has(node.type)) {
    errors.push(`${path}.type: unsupported value ${JSON.stringify(node.type)}`);
  }
  if (intOrString) errors.push(`${path}.type: must be empty when x-kubernetes-int-or-string is true`);
}

function checkShape(node: JsonObject, path: string, errors: string[]): void {
  const { type } = node;
  if ("properties" in node && "additionalProperties" in node) {
    errors.push(`${path}.additionalProperties: additionalProperties and properties are mutual exclusive`);
  }
  if (("properties" in node || "additionalProperties" in node) && type !== undefined && type !== "object") {
    errors.push(`${path}.properties: must only be used if type is object`);
  }
  if ("additionalProperties" in node && !isObject(node.additionalProperties)) {
    errors.push(`${path}.additionalProperties: must be a schema`);
  }
  if (type === "array" && !("items" in node)) errors.push(`${path}.items: must be specified for arrays`);
  if ("items" in node && type !== "array") errors.push(`${path}.items: must only be used if type is array`);
  if (Array.isArray(node.items)) errors.push(`${path}.items: must be a schema object and not an array`);
  if ("required" in node && !isStringArray(node.required))
    errors.push(`${path}.required: must be a string list`);
  if ("enum" in node && !Array.isArray(node.enum)) errors.push(`${path}.enum: must be a list`);
  if (node["x-kubernetes-int-or-string"] === true && "anyOf" in node && !isIntOrStringAnyOf(node.anyOf)) {
    errors.push(`${path}.anyOf: must be [{type: integer}, {type: string}] with x-kubernetes-int-or-string`);
  }
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const [first, second] = anyOf as unknown[];
  return isObject(first) && first.type === "integer" && isObject(second) && second.type === "string";
}

function checkListMarkers(node: JsonObject, path: string, errors: string[]): void {
  const listType = node["x-kubernetes-list-type"];
  const keys = node["x-kubernetes-list-map-keys"];
  if (listType === undefined) {
    if (keys !== undefined)
      errors.push(`${path}.x-kubernetes-list-type: must be map if list-map-keys is non-empty`);
    return;
  }
  if (node.type !== "array")
    errors.push(`${path}.type: must be array if x-kubernetes-list-type is specified`);
  if (listType !== "atomic" && listType !== "set" && listType !== "map") {
    errors.push(`${path}.x-kubernetes-list-type: unsupported value ${JSON.stringify(listType)}`);
    return;
  }
  const items = isObject(node.items) ? node.items : undefined;
  if (items === undefined) return;
  if ((listType === "set" || listType === "map") && items.nullable === true) {
    errors.push(`${path}.items.nullable: cannot be nullable when x-kubernetes-list-type is ${listType}`);
  }
  if (listType === "set") checkSetItems(items, path, errors);
  if (listType === "map") checkMapListKeys(items, keys, path, errors);
  else if (keys !== undefined)
    errors.push(`${path}.x-kubernetes-list-type: must be map if list-map-keys is non-empty`);
}

function checkSetItems(items: JsonObject, path: string, errors: string[]): void {
  if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
    errors.push(
      `${path}.items.x-kubernetes-map-type: must be atomic as item of a list with x-kubernetes-list-type=set`,
    );
  }
  const itemListType = items["x-kubernetes-list-type"];
  if (items.type === "array" && itemListType !== undefined && itemListType !== "atomic") {
    errors.push(
      `${path}.items.x-kubernetes-list-type: must be atomic as item of a list with x-kubernetes-list-type=set`,
    );
  }
}

function checkMapListKeys(items: JsonObject, keys: unknown, path: string, errors: string[]): void {
  if (!isStringArray(keys) || keys.length === 0) {
    errors.push(`${path}.x-kubernetes-list-map-keys: must not be empty if x-kubernetes-list-type is map`);
    return;
  }
  if (items.type !== "object")
    errors.push(`${path}.items.type: must be object if x-kubernetes-list-type is map`);
  if (new Set(keys).size !== keys.length)
    errors.push(`${path}.x-kubernetes-list-map-keys: duplicate entries`);
  const properties = isObject(items.properties) ? items.properties : {};
  const required = isStringArray(items.required) ? items.required : [];
  for (const key of keys) {
    const property = properties[key];
    if (!isObject(property)) {
      errors.push(`${path}.x-kubernetes-list-map-keys: ${key} is not a property of the items`);
      continue;
    }
    const keyPath = `${path}.items.properties.${key}`;
    if (property.type === "array" || property.type === "object")
      errors.push(`${keyPath}.type: must be a scalar type`);
    if (!required.includes(key) && property.default === undefined) {
      errors.push(`${keyPath}.default: a list-map key must have a default or be a required property`);
    }
    if (property.nullable === true) errors.push(`${keyPath}.nullable: a list-map key cannot be nullable`);
  }
}

function checkMapMarker(node: JsonObject, path: string, errors: string[]): void {
  const mapType = node["x-kubernetes-map-type"];
  if (mapType === undefined) return;
  if (node.type !== "object")
    errors.push(`${path}.type: must be object if x-kubernetes-map-type is specified`);
  if (mapType !== "atomic" && mapType !== "granular") {
    errors.push(`${path}.x-kubernetes-map-type: unsupported value ${JSON.stringify(mapType)}`);
  }
}

function checkChildren(node: JsonObject, parent: NodeContext, errors: string[]): void {
  const ctx: NodeContext = { ...parent, typeAllowed: false };
  const { path } = ctx;
  const isRoot = path === "openAPIV3Schema";
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      const inRootMetadata = ctx.inRootMetadata || (isRoot && name === "metadata");
      checkNode(child, { ...ctx, path: `${path}.properties.${name}`, inRootMetadata }, errors);
    }
  }
  if (isObject(node.additionalProperties)) {
    checkNode(node.additionalProperties, { ...ctx, path: `${path}.additionalProperties` }, errors);
  }
  if (isObject(node.items)) checkNode(node.items, { ...ctx, path: `${path}.items` }, errors);
  for (const combinator of ["anyOf", "allOf", "oneOf"]) {
    const list = node[combinator];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      errors.push(`${path}.${combinator}: must be a list`);
      continue;
    }
    const typeAllowed =
      combinator === "anyOf" && node["x-kubernetes-int-or-string"] === true && isIntOrStringAnyOf(list);
    list.forEach((child: unknown, i) => {
      checkNode(
        child,
        { ...ctx, path: `${path}.${combinator}[${i}]`, valueValidation: true, typeAllowed },
        errors,
      );
    });
  }
  if ("not" in node) {
    checkNode(node.not, { ...ctx, path: `${path}.not`, valueValidation: true, typeAllowed: false }, errors);
  }
}

// Property paths of a schema tree with the facts a reader of `kubectl explain` sees at each one.
// The same enumeration rule serves both sides of the coverage measurement: the reference document
// (following $refs) and a generated CRD schema (already inlined).
//   spec.template.spec.domain.devices.disks[].name    `[]` = an array's items
//   spec.nodeSelector{}                                `{}` = a map's values
import type { JSONSchemaProps } from "../../pkg/virt-operator/resource/generate/components/crd-types.js";
import { lookupDefinition, referenceTypeOf, refTarget } from "../../pkg/api/openapi-reference.js";
import type { ReferenceDocument, ReferenceSchema } from "../../pkg/api/openapi-reference.js";

export interface PathFacts {
  /** object, array, string, integer, number, boolean, int-or-string, or "" when untyped. */
  type: string;
  /** The field's own description (not its type's). */
  description?: string | undefined;
  required?: readonly string[] | undefined;
  enum?: readonly unknown[] | undefined;
}

export type PathMap = Map<string, PathFacts>;

/** How many property names deep both enumerations go; far beyond any kubevirt kind, it only bounds recursion. */
export const MAX_PATH_DEPTH = 40;

// ---- reference side --------------------------------------------------------------------------------

interface ResolvedReference {
  schema: ReferenceSchema;
  /** Definitions expanded on the way here, including this one. */
  trail: readonly string[];
  /** A definition seen again on its own trail: its contents are not enumerated again. */
  recursive: boolean;
  intOrString: boolean;
}

function resolve(
  doc: ReferenceDocument,
  schema: ReferenceSchema,
  trail: readonly string[],
): ResolvedReference {
  if (schema.$ref === undefined) {
    return { schema, trail, recursive: false, intOrString: referenceTypeOf(schema).intOrString };
  }
  const name = refTarget(schema.$ref);
  const target = lookupDefinition(doc, name);
  if (trail.includes(name)) return { schema: target, trail, recursive: true, intOrString: false };
  return resolve(doc, target, [...trail, name]);
}

function referenceType(resolved: ResolvedReference): string {
  if (resolved.intOrString) return "int-or-string";
  const { properties, additionalProperties } = resolved.schema;
  const { type } = referenceTypeOf(resolved.schema);
  if (type !== undefined) return type;
  return properties !== undefined || additionalProperties !== undefined ? "object" : "";
}

/** Every property path reachable from `definition` in the reference, with the facts found there. */
export function referencePaths(doc: ReferenceDocument, definition: string): PathMap {
  const out: PathMap = new Map();
  const root = resolve(doc, { $ref: `#/definitions/${definition}` }, []);
  walkReference(doc, root, "", 0, out);
  return out;
}

function walkReference(
  doc: ReferenceDocument,
  node: ResolvedReference,
  prefix: string,
  depth: number,
  out: PathMap,
): void {
  if (node.recursive || node.intOrString || depth >= MAX_PATH_DEPTH) return;
  const { properties, items, additionalProperties } = node.schema;
  if (properties !== undefined) {
    for (const [name, property] of Object.entries(properties)) {
      const child = resolve(doc, property, node.trail);
      const path = prefix === "" ? name : `${prefix}.${name}`;
      out.set(path, {
        type: referenceType(child),
        description: property.description,
        required: child.recursive ? undefined : child.schema.required,
        enum: child.schema.enum,
      });
      walkReference(doc, child, path, depth + 1, out);
    }
  } else if (items !== undefined) {
    walkReference(doc, resolve(doc, items, node.trail), `${prefix}[]`, depth, out);
  } else if (typeof additionalProperties === "object") {
    walkReference(doc, resolve(doc, additionalProperties, node.trail), `${prefix}{}`, depth, out);
  }
}

// ---- CRD side --------------------------------------------------------------------------------------

function crdType(node: JSONSchemaProps): string {
  if (node["x-kubernetes-int-or-string"] === true) return "int-or-string";
  return node.type ?? "";
}

/** Every property path of a CRD schema, with the facts found there. */
export function crdSchemaPaths(schema: JSONSchemaProps): PathMap {
  const out: PathMap = new Map();
  walkCrd(schema, "", 0, out);
  return out;
}

function walkCrd(node: JSONSchemaProps, prefix: string, depth: number, out: PathMap): void {
  if (depth >= MAX_PATH_DEPTH) return;
  if (node.properties !== undefined) {
    for (const [name, child] of Object.entries(node.properties)) {
      const path = prefix === "" ? name : `${prefix}.${name}`;
      out.set(path, {
        type: crdType(child),
        description: child.description,
        required: child.required,
        enum: child.enum,
      });
      walkCrd(child, path, depth + 1, out);
    }
  } else if (node.items !== undefined) {
    walkCrd(node.items, `${prefix}[]`, depth, out);
  } else if (node.additionalProperties !== undefined) {
    walkCrd(node.additionalProperties, `${prefix}{}`, depth, out);
  }
}

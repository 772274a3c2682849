// Upstream's OpenAPI (swagger 2) document, parsed at the boundary into the few keywords the API
// and CRD generators read. Definitions are named like `v1.VirtualMachine`, `k8s.io.api.core.v1.Affinity`.
import { z } from "zod";

export interface ReferenceSchema {
  description?: string | undefined;
  type?: string | string[] | undefined;
  format?: string | undefined;
  enum?: unknown[] | undefined;
  $ref?: string | undefined;
  items?: ReferenceSchema | undefined;
  additionalProperties?: ReferenceSchema | boolean | undefined;
  properties?: Record<string, ReferenceSchema> | undefined;
  required?: string[] | undefined;
  nullable?: boolean | undefined;
  "x-kubernetes-list-type"?: string | undefined;
  "x-kubernetes-list-map-keys"?: string[] | undefined;
  "x-kubernetes-map-type"?: string | undefined;
}

const referenceSchema: z.ZodType<ReferenceSchema> = z.looseObject({
  description: z.string().optional(),
  type: z.union([z.string(), z.array(z.string())]).optional(),
  format: z.string().optional(),
  enum: z.array(z.unknown()).optional(),
  $ref: z.string().optional(),
  get items() {
    return referenceSchema.optional();
  },
  get additionalProperties() {
    return z.union([referenceSchema, z.boolean()]).optional();
  },
  get properties() {
    return z.record(z.string(), referenceSchema).optional();
  },
  required: z.array(z.string()).optional(),
  nullable: z.boolean().optional(),
  "x-kubernetes-list-type": z.string().optional(),
  "x-kubernetes-list-map-keys": z.array(z.string()).optional(),
  "x-kubernetes-map-type": z.string().optional(),
});

const referenceDocument = z.looseObject({
  swagger: z.literal("2.0"),
  definitions: z.record(z.string(), referenceSchema),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export interface ReferenceDocument {
  definitions: Record<string, ReferenceSchema>;
  /** path → method → operation; only operations' response schemas are read. */
  paths: Record<string, Record<string, unknown>>;
}

export function parseReferenceDocument(input: unknown): ReferenceDocument {
  const parsed = referenceDocument.safeParse(input);
  if (!parsed.success) throw new Error(`not a swagger 2.0 document: ${z.prettifyError(parsed.error)}`);
  return { definitions: parsed.data.definitions, paths: parsed.data.paths };
}

const responseNode = z.looseObject({ schema: z.looseObject({ $ref: z.string().optional() }).optional() });
const operationNode = z.looseObject({ responses: z.record(z.string(), responseNode).optional() });

/** The `$ref` targets of an operation's responses, or none when the entry is not an operation. */
export function responseRefs(operation: unknown): string[] {
  const parsed = operationNode.safeParse(operation);
  if (!parsed.success) return [];
  return Object.values(parsed.data.responses ?? {}).flatMap((r) => (r.schema?.$ref ? [r.schema.$ref] : []));
}

const DEFINITION_REF_PREFIX = "#/definitions/";

/** `#/definitions/v1.Disk` → `v1.Disk`. */
export function refTarget(ref: string): string {
  if (!ref.startsWith(DEFINITION_REF_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(DEFINITION_REF_PREFIX.length);
}

export function lookupDefinition(doc: ReferenceDocument, name: string): ReferenceSchema {
  const found = doc.definitions[name];
  if (found === undefined) throw new Error(`the reference has no definition ${name}`);
  return found;
}

export interface ReferenceType {
  /** The single JSON type left once `null` is taken out; undefined when none or several. */
  type?: string | undefined;
  /** `type: [X, "null"]`, or `nullable: true`. */
  nullable: boolean;
  /** IntOrString's `format: int-or-string`, or Quantity's `type: [string, integer, number]`. */
  intOrString: boolean;
}

/** The reference spells types three ways: a name, a list with "null", or a list of alternatives. */
export function referenceTypeOf(schema: ReferenceSchema): ReferenceType {
  const listed = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const nonNull = listed.filter((t) => t !== "null");
  const nullable = schema.nullable === true || nonNull.length < listed.length;
  const numeric = nonNull.includes("integer") || nonNull.includes("number");
  const intOrString = schema.format === "int-or-string" || (nonNull.includes("string") && numeric);
  return { type: nonNull.length === 1 ? nonNull[0] : undefined, nullable, intOrString };
}

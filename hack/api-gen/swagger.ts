// The part of a swagger 2 document the API generator reads, parsed at the boundary so the
// rest of the generator works on typed values.
import { z } from "zod";

/** A JSON schema node as upstream's swagger document spells it (only the keywords we use). */
export interface SchemaNode {
  type?: string | string[] | undefined;
  format?: string | undefined;
  description?: string | undefined;
  enum?: string[] | undefined;
  $ref?: string | undefined;
  items?: SchemaNode | undefined;
  additionalProperties?: SchemaNode | boolean | undefined;
  properties?: Record<string, SchemaNode> | undefined;
  required?: string[] | undefined;
  nullable?: boolean | undefined;
}

// Cast rather than annotated: proving zod's inferred type equals SchemaNode costs tsc seconds.
const schemaNode = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  format: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.string()).optional(),
  $ref: z.string().optional(),
  get items() {
    return schemaNode.optional();
  },
  get additionalProperties() {
    return z.union([schemaNode, z.boolean()]).optional();
  },
  get properties() {
    return z.record(z.string(), schemaNode).optional();
  },
  required: z.array(z.string()).optional(),
  nullable: z.boolean().optional(),
}) as unknown as z.ZodType<SchemaNode>;

const responseNode = z.looseObject({ schema: z.looseObject({ $ref: z.string().optional() }).optional() });
const operationNode = z.looseObject({ responses: z.record(z.string(), responseNode).optional() });

export interface SwaggerDocument {
  definitions: Record<string, SchemaNode>;
  /** path → method → operation; only operations' response schemas are read. */
  paths: Record<string, Record<string, unknown>>;
}

const swaggerDocument = z.looseObject({
  swagger: z.literal("2.0"),
  definitions: z.record(z.string(), schemaNode),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export function parseSwagger(input: unknown): SwaggerDocument {
  const result = swaggerDocument.safeParse(input);
  if (!result.success) {
    throw new Error(`not a swagger 2.0 document: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/** The `$ref` targets of an operation's responses, or none when the entry is not an operation. */
export function responseRefs(operation: unknown): string[] {
  const parsed = operationNode.safeParse(operation);
  if (!parsed.success) return [];
  return Object.values(parsed.data.responses ?? {}).flatMap((r) => (r.schema?.$ref ? [r.schema.$ref] : []));
}

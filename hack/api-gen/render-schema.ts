// Turns one swagger schema node into a TypeScript type expression and the matching zod
// expression. Both come from the same walk so the interface and the schema cannot disagree.
import { locateDefinition, refTarget, schemaName } from "./names.js";
import type { SchemaNode } from "./swagger.js";

export interface RenderedSchema {
  ts: string;
  zod: string;
  /** True when the zod expression names another schema, so it must be evaluated lazily. */
  refersToSchema: boolean;
}

export interface RenderContext {
  /** Module being written; references into other modules go through their namespace import. */
  module: string;
  definitions: Readonly<Record<string, SchemaNode>>;
  /** Collects the modules this one imports. */
  importedModules: Set<string>;
}

const UNTYPED_OBJECT: RenderedSchema = {
  ts: "Record<string, unknown>",
  zod: "kit.record(kit.unknown())",
  refersToSchema: false,
};

const UNKNOWN: RenderedSchema = { ts: "unknown", zod: "kit.unknown()", refersToSchema: false };

export function renderSchema(node: SchemaNode, ctx: RenderContext): RenderedSchema {
  if (node.$ref !== undefined) return renderRef(node.$ref, ctx);
  const types = typeof node.type === "string" ? [node.type] : (node.type ?? []);
  const nonNull = types.filter((t) => t !== "null");
  const rendered = renderNonNull(node, nonNull, ctx);
  return nonNull.length < types.length ? nullable(rendered) : rendered;
}

function renderRef(ref: string, ctx: RenderContext): RenderedSchema {
  const target = refTarget(ref);
  const definition = ctx.definitions[target];
  if (definition === undefined) throw new Error(`$ref to unknown definition ${target}`);
  const { module, typeName } = locateDefinition(target);
  let qualifier = "";
  if (module !== ctx.module) {
    ctx.importedModules.add(module);
    qualifier = `${module}.`;
  }
  const rendered = { ts: qualifier + typeName, zod: qualifier + schemaName(typeName), refersToSchema: true };
  // A definition marked nullable (upstream's `+nullable`, e.g. statuses) accepts null wherever it is used.
  return definition.nullable === true ? nullable(rendered) : rendered;
}

function renderNonNull(node: SchemaNode, types: string[], ctx: RenderContext): RenderedSchema {
  if (node.enum !== undefined) return renderEnum(node.enum);
  // IntOrString holds a string or an int32.
  if (node.format === "int-or-string") return renderUnion(["string", "integer"], "int32");
  if (types.length > 1) return renderUnion(types, node.format);
  const [type] = types;
  switch (type) {
    case undefined:
      return node.properties !== undefined ? renderObject(node, ctx) : UNKNOWN;
    case "object":
      return renderObjectLike(node, ctx);
    case "array":
      return renderArray(node, ctx);
    default:
      return renderScalar(type, node.format);
  }
}

function renderScalar(type: string, format: string | undefined): RenderedSchema {
  switch (type) {
    case "string":
      return { ts: "string", zod: "kit.string()", refersToSchema: false };
    case "boolean":
      return { ts: "boolean", zod: "kit.boolean()", refersToSchema: false };
    case "number":
      return { ts: "number", zod: "kit.number()", refersToSchema: false };
    case "integer":
      return { ts: "number", zod: format === "int32" ? "kit.int32()" : "kit.int()", refersToSchema: false };
    default:
      throw new Error(`unsupported schema type ${JSON.stringify(type)}`);
  }
}

function renderUnion(types: string[], format: string | undefined): RenderedSchema {
  // JSON has one number type: `integer` folds into `number` when both are allowed.
  const members = types.includes("number") ? [...new Set(types.filter((t) => t !== "integer"))] : types;
  const parts = members.map((t) => renderScalar(t, format));
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return {
    ts: [...new Set(parts.map((p) => p.ts))].join(" | "),
    zod: `kit.union([${parts.map((p) => p.zod).join(", ")}])`,
    refersToSchema: false,
  };
}

function renderEnum(values: readonly unknown[]): RenderedSchema {
  const literals = values.map((v) => JSON.stringify(v));
  return {
    ts: literals.join(" | "),
    zod: `kit.literalUnion([${literals.join(", ")}])`,
    refersToSchema: false,
  };
}

function renderArray(node: SchemaNode, ctx: RenderContext): RenderedSchema {
  if (node.items === undefined)
    return { ts: "unknown[]", zod: "kit.array(kit.unknown())", refersToSchema: false };
  const item = renderSchema(node.items, ctx);
  const itemTs = /^[\w.]+$/.test(item.ts) ? item.ts : `(${item.ts})`;
  return { ts: `${itemTs}[]`, zod: `kit.array(${item.zod})`, refersToSchema: item.refersToSchema };
}

function renderObjectLike(node: SchemaNode, ctx: RenderContext): RenderedSchema {
  if (node.properties !== undefined) return renderObject(node, ctx);
  const values = node.additionalProperties;
  if (values === undefined || typeof values === "boolean") return UNTYPED_OBJECT;
  const value = renderSchema(values, ctx);
  return {
    ts: `Record<string, ${value.ts}>`,
    zod: `kit.record(${value.zod})`,
    refersToSchema: value.refersToSchema,
  };
}

/**
 * An inline object type, its shape built on first use (definitions with properties go through
 * renderDefinition instead).
 */
function renderObject(node: SchemaNode, ctx: RenderContext): RenderedSchema {
  const members = renderMembers(node, ctx);
  return {
    ts: `{ ${members.map((m) => m.tsMember).join(" ")} }`,
    zod: `kit.looseObject(() => ({ ${members.map((m) => m.zodMember).join(" ")} }))`,
    refersToSchema: false,
  };
}

export interface RenderedMember {
  tsMember: string;
  zodMember: string;
}

/** Interface members and looseObject shape entries for an object's properties, in reference order. */
export function renderMembers(node: SchemaNode, ctx: RenderContext): RenderedMember[] {
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {}).map(([name, property]) => {
    const rendered = renderSchema(property, ctx);
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    const optional = !required.has(name);
    const zod = optional ? `kit.optional(${rendered.zod})` : rendered.zod;
    const doc = jsDoc(property.description);
    return {
      tsMember: `${doc}${key}${optional ? "?" : ""}: ${rendered.ts};`,
      // Shapes are built on first use (kit.looseObject takes a function), after every module has
      // loaded: references need no getter, in any order and in cycles.
      zodMember: `${key}: ${zod},`,
    };
  });
}

function nullable(rendered: RenderedSchema): RenderedSchema {
  return { ...rendered, ts: `${rendered.ts} | null`, zod: `kit.nullable(${rendered.zod})` };
}

/** A JSDoc block for a reference description, or nothing when there is none. */
export function jsDoc(description: string | undefined): string {
  if (description === undefined || description.trim() === "") return "";
  const lines = description
    .replaceAll("*/", "*\\/")
    .split("\n")
    .map((line) => ` *${line.trimEnd() === "" ? "" : " " + line.trimEnd()}`);
  return `/**\n${lines.join("\n")}\n */\n`;
}

// Applying an RFC 6902 JSON Patch: the in-memory apiserver applies the components' patches with it, and
// virt-operator applies the KubeVirt CR's customizeComponents patches of type "json" (upstream does both
// with evanphx/json-patch, which implements all six operations).
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { JsonPatchOp } from "./patch.js";

/** One operation as a user may write it: the builders' four, plus move and copy. */
export type JsonPatchOperation = JsonPatchOp | { op: "move" | "copy"; from: string; path: string };

export class JsonPatchTestFailed extends Error {}

const operationSchema = z.discriminatedUnion("op", [
  z.object({ op: z.enum(["add", "replace", "test"]), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal("remove"), path: z.string() }),
  z.object({ op: z.enum(["move", "copy"]), from: z.string(), path: z.string() }),
]);

/** Decodes a patch document (a JSON array of operations); throws on bad JSON or an unknown operation. */
export function decodeJsonPatch(text: string): JsonPatchOperation[] {
  const parsed = z.array(operationSchema).safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`invalid JSON patch: ${z.prettifyError(parsed.error)}`);
  return parsed.data as JsonPatchOperation[];
}

function tokens(path: string): string[] {
  if (!path.startsWith("/")) throw new Error(`invalid JSON pointer ${path}`);
  return path
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, path: string): { parent: Container; key: string } {
  const parts = tokens(path);
  const key = parts.pop();
  if (key === undefined) throw new Error("cannot patch the document root");
  let node: unknown = doc;
  for (const part of parts) {
    node = Array.isArray(node) ? node[Number(part)] : (node as Record<string, unknown> | undefined)?.[part];
    if (node === null || typeof node !== "object") throw new Error(`path ${path} does not exist`);
  }
  return { parent: node as Container, key };
}

/** Where "add" inserts into a list: an existing position, or the end ("-" or the length). */
function insertionIndex(list: unknown[], key: string, path: string): number {
  if (key === "-") return list.length;
  const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  if (!(index <= list.length)) throw new Error(`array index ${key} out of bounds at ${path}`);
  return index;
}

function lookup(doc: unknown, path: string): unknown {
  const { parent, key } = parentOf(doc, path);
  return Array.isArray(parent) ? parent[Number(key)] : parent[key];
}

function get(doc: unknown, path: string): unknown {
  const value = lookup(doc, path);
  if (value === undefined) throw new Error(`path ${path} does not exist`);
  return value;
}

function remove(doc: unknown, path: string): unknown {
  const value = get(doc, path);
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return value;
}

function add(doc: unknown, path: string, value: unknown): void {
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(insertionIndex(parent, key, path), 0, structuredClone(value));
  else parent[key] = structuredClone(value);
}

/** Applies the patch to a copy of `doc`; throws when a path is missing or a test fails. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOperation[]): T {
  const out = structuredClone(doc);
  for (const op of ops) {
    switch (op.op) {
      case "test":
        // A missing member fails the test, as the apiserver answers it.
        if (!isDeepStrictEqual(lookup(out, op.path), op.value)) {
          throw new JsonPatchTestFailed(`test failed at ${op.path}`);
        }
        break;
      case "remove":
        remove(out, op.path);
        break;
      case "replace":
        remove(out, op.path);
        add(out, op.path, op.value);
        break;
      case "add":
        add(out, op.path, op.value);
        break;
      case "move":
        add(out, op.path, remove(out, op.from));
        break;
      case "copy":
        add(out, op.path, get(out, op.from));
        break;
    }
  }
  return out;
}

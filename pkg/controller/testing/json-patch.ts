// RFC 6902 JSON Patch (add, replace, remove, test) for the in-memory apiserver; the real apiserver applies
// the components' patches itself.
import { isDeepStrictEqual } from "node:util";
import type { JsonPatchOp } from "../../apimachinery/patch/patch.js";

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

export class JsonPatchTestFailed extends Error {}

/** Applies the patch to a copy of `doc`; throws when a path is missing or a test fails. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  const out = structuredClone(doc);
  for (const op of ops) {
    const { parent, key } = parentOf(out, op.path);
    const current = Array.isArray(parent) ? parent[Number(key)] : parent[key];
    switch (op.op) {
      case "test":
        if (!isDeepStrictEqual(current, op.value)) throw new JsonPatchTestFailed(`test failed at ${op.path}`);
        break;
      case "remove":
        if (current === undefined) throw new Error(`path ${op.path} does not exist`);
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
        break;
      case "replace":
        if (current === undefined) throw new Error(`path ${op.path} does not exist`);
        (parent as Record<string, unknown>)[key] = structuredClone(op.value);
        break;
      case "add":
        if (Array.isArray(parent))
          parent.splice(key === "-" ? parent.length : Number(key), 0, structuredClone(op.value));
        else parent[key] = structuredClone(op.value);
        break;
    }
  }
  return out;
}

// Reads `a.b[0].c` / `a["x.y"]` paths out of plain objects, for table-driven render tests.
export function at(obj: unknown, path: string): unknown {
  const parts = [...path.matchAll(/([^.[\]"]+)|\[(\d+)\]|\["([^"]+)"\]/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? "",
  );
  let node: unknown = obj;
  for (const part of parts) {
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(part)] : (node as Record<string, unknown>)[part];
  }
  return node;
}

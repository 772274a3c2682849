// RFC 6902 JSON patches the way upstream's controllers write them (pkg/apimachinery/patch): a "test"
// of the value last seen before each "replace", so a patch built from a stale cache fails instead of
// overwriting someone else's change.

export interface JsonPatchOp {
  op: "add" | "replace" | "remove" | "test";
  path: string;
  value?: unknown;
}

/** Escapes a key for use as one JSON pointer segment. */
export function escapeJsonPointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export class PatchSet {
  private readonly ops: JsonPatchOp[] = [];

  get isEmpty(): boolean {
    return this.ops.length === 0;
  }

  add(path: string, value: unknown): this {
    this.ops.push({ op: "add", path, value });
    return this;
  }

  /**
   * Sets `path` to `next`: a test of `previous` then a replace when there was a value, an add when
   * there was none (a test of an absent member cannot be expressed).
   */
  testAndSet(path: string, previous: unknown, next: unknown): this {
    if (previous === undefined || previous === null) return this.add(path, next);
    this.ops.push({ op: "test", path, value: previous }, { op: "replace", path, value: next });
    return this;
  }

  toJSON(): JsonPatchOp[] {
    return [...this.ops];
  }
}

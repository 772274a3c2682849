// Equality of API objects as JSON carries them: a member that is absent, undefined or null is the same
// thing; everything else must match exactly (a map entry with an empty value is still an entry).

const absent = (value: unknown): boolean => value === undefined || value === null;

export function jsonEqual(left: unknown, right: unknown): boolean {
  if (absent(left) || absent(right)) return absent(left) && absent(right);
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]));
  }
  if (typeof left === "object" && typeof right === "object") {
    const a = left as Record<string, unknown>;
    const b = right as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => jsonEqual(a[key], b[key]));
  }
  return left === right;
}

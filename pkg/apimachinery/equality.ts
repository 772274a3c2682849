// apimachinery's equality.Semantic on objects as JSON carries them: absent, null, an empty list and an
// empty map are all the same (Go decodes them to nil or empty, which Semantic.DeepEqual does not tell
// apart); everything else must match exactly.

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function semanticEqual(left: unknown, right: unknown): boolean {
  if (isMap(left) && isMap(right)) {
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].every((key) => semanticEqual(left[key], right[key]));
  }
  if (isEmpty(left) || isEmpty(right)) return isEmpty(left) && isEmpty(right);
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => semanticEqual(item, right[index]));
  }
  return left === right;
}

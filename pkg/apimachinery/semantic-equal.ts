// equality.Semantic.DeepEqual on decoded Go structs, approximated on JSON: a member that is absent,
// null or its type's zero value ("" 0 false [] {}) decodes to the same Go value, so they compare equal.
function isZeroValue(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.values(value).every(isZeroValue);
}

export function semanticallyEqual(left: unknown, right: unknown): boolean {
  if (isZeroValue(left) && isZeroValue(right)) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => semanticallyEqual(item, right[index]));
  }
  if (typeof left === "object" && typeof right === "object" && left !== null && right !== null) {
    const leftMembers = left as Record<string, unknown>;
    const rightMembers = right as Record<string, unknown>;
    const keys = new Set([...Object.keys(leftMembers), ...Object.keys(rightMembers)]);
    return [...keys].every((key) => semanticallyEqual(leftMembers[key], rightMembers[key]));
  }
  return left === right;
}

// "Is the stored object as desired?" when the apiserver fills in defaults: every field the desired object
// sets must be there with the same value; fields only the server set do not count.

/** True when `desired` is `actual` with some fields left out (lists compared element by element). */
export function containsDesired(actual: unknown, desired: unknown): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(actual) &&
      actual.length === desired.length &&
      desired.every((item, i) => containsDesired(actual[i], item))
    );
  }
  if (desired !== null && typeof desired === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    const record = actual as Record<string, unknown>;
    return Object.entries(desired).every(([key, value]) => containsDesired(record[key], value));
  }
  return actual === desired;
}

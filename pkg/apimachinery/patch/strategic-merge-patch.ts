// Strategic merge patch (k8s.io/apimachinery's strategicpatch) without the Go types: the caller names the
// lists that merge and their merge keys (what upstream reads from the `patchMergeKey` struct tags), e.g.
// "spec.template.spec.containers" → "name". Maps merge key by key and null removes a key; a keyed list
// merges element by element (new elements appended, as upstream does); any other list is replaced. The
// directives $patch (merge/replace/delete), $retainKeys and $deleteFromPrimitiveList are honoured;
// $setElementOrder only orders elements and is dropped.
import { isDeepStrictEqual } from "node:util";

/** Dotted field path (list elements add no segment) → the key that identifies an element of that list. */
export type MergeKeys = Readonly<Record<string, string>>;

type Json = Record<string, unknown>;

const PATCH_DIRECTIVE = "$patch";
const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder/";

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const childPath = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** Returns the patched copy of `original`. */
export function applyStrategicMergePatch(original: unknown, patch: unknown, mergeKeys: MergeKeys): unknown {
  if (!isObject(patch)) throw new Error("a strategic merge patch must be a JSON object");
  return mergeMap(isObject(original) ? original : {}, patch, "", mergeKeys) ?? {};
}

/** The merged map, or undefined when the patch deletes it. */
function mergeMap(original: Json, patch: Json, path: string, mergeKeys: MergeKeys): Json | undefined {
  const directive = patch[PATCH_DIRECTIVE];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const { [PATCH_DIRECTIVE]: _replace, ...wanted } = patch;
    return mergeMap({}, wanted, path, mergeKeys);
  }
  const out: Json = structuredClone(original);
  for (const [key, value] of Object.entries(patch)) {
    if (
      key === PATCH_DIRECTIVE ||
      key === RETAIN_KEYS_DIRECTIVE ||
      key.startsWith(SET_ELEMENT_ORDER_PREFIX)
    ) {
      continue;
    }
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST_PREFIX.length);
      const current = out[field];
      if (Array.isArray(current) && Array.isArray(value))
        out[field] = current.filter((v) => !value.includes(v));
      continue;
    }
    if (value === null || value === undefined) {
      delete out[key];
      continue;
    }
    const merged = mergeValue(out[key], value, childPath(path, key), mergeKeys);
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  const retained = patch[RETAIN_KEYS_DIRECTIVE];
  if (Array.isArray(retained)) {
    for (const key of Object.keys(out)) if (!retained.includes(key)) delete out[key];
  }
  return out;
}

function mergeValue(original: unknown, patch: unknown, path: string, mergeKeys: MergeKeys): unknown {
  if (isObject(patch)) return mergeMap(isObject(original) ? original : {}, patch, path, mergeKeys);
  if (Array.isArray(patch)) return mergeList(original, patch, path, mergeKeys);
  return patch;
}

function mergeList(original: unknown, patch: unknown[], path: string, mergeKeys: MergeKeys): unknown[] {
  const mergeKey = mergeKeys[path];
  const replacesList = patch.some((item) => isObject(item) && item[PATCH_DIRECTIVE] === "replace");
  if (mergeKey === undefined || replacesList) {
    return patch
      .filter((item) => !(isObject(item) && item[PATCH_DIRECTIVE] === "replace"))
      .map((item) => mergeValue(undefined, item, path, mergeKeys));
  }
  let out = Array.isArray(original) ? [...original] : [];
  for (const item of patch) {
    if (!isObject(item)) {
      if (!out.some((existing) => isDeepStrictEqual(existing, item))) out.push(item);
      continue;
    }
    if (!(mergeKey in item)) {
      throw new Error(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    }
    const sameKey = (existing: unknown) =>
      isObject(existing) && isDeepStrictEqual(existing[mergeKey], item[mergeKey]);
    if (item[PATCH_DIRECTIVE] === "delete") {
      out = out.filter((existing) => !sameKey(existing));
      continue;
    }
    const index = out.findIndex(sameKey);
    const merged = mergeMap(index >= 0 ? (out[index] as Json) : {}, item, path, mergeKeys) ?? {};
    if (index >= 0) out[index] = merged;
    else out.push(merged);
  }
  return out;
}

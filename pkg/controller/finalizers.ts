// Finalizers as upstream's controllers change them: a JSON patch that tests the list last seen and
// replaces it, so that a change someone else made meanwhile fails the patch instead of being lost.
import { PatchSet, type JsonPatchOp } from "../apimachinery/patch/patch.js";
import type { KubeObject } from "./object.js";

export const hasFinalizer = (obj: KubeObject, finalizer: string): boolean =>
  obj.metadata?.finalizers?.includes(finalizer) ?? false;

/** The patch that adds (present) or removes `finalizer`; undefined when the object already agrees. */
export function finalizerPatch(
  obj: KubeObject,
  finalizer: string,
  present: boolean,
): JsonPatchOp[] | undefined {
  if (hasFinalizer(obj, finalizer) === present) return undefined;
  const current = obj.metadata?.finalizers ?? [];
  const next = present ? [...current, finalizer] : current.filter((name) => name !== finalizer);
  return new PatchSet().testAndSet("/metadata/finalizers", obj.metadata?.finalizers, next).toJSON();
}

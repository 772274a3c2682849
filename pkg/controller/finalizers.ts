// Finalizers as upstream's controllers change them: a JSON patch that tests the list last seen and
// replaces it, so that a change someone else made meanwhile fails the patch instead of being lost.
import { PatchSet, type JsonPatchOp } from "../apimachinery/patch/patch.js";
import { isConflict, isInvalid } from "./api-error.js";
import type { ResourceClient } from "./client.js";
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

/** How often a finalizer patch whose test failed is tried again on a fresh read. */
const FINALIZER_PATCH_ATTEMPTS = 3;

/**
 * Adds (present) or removes `finalizer` with finalizerPatch; answers the object as written, or as it was
 * when it already agrees. When another controller changed the list since it was read (the test fails:
 * 422, or 409), the object is read again and the patch retried, since such a change need not wake the
 * caller again (a pool's deleted VM loses the VM controller's finalizer, then waits for the pool's).
 */
export async function setFinalizer<T extends KubeObject>(
  client: Pick<ResourceClient<T>, "get" | "patch">,
  obj: T,
  finalizer: string,
  present: boolean,
): Promise<T> {
  const namespace = obj.metadata?.namespace ?? "";
  const name = obj.metadata?.name ?? "";
  let current = obj;
  for (let attempt = 1; ; attempt++) {
    const patch = finalizerPatch(current, finalizer, present);
    if (!patch) return current;
    try {
      return await client.patch(namespace, name, "json", patch);
    } catch (err) {
      if (attempt >= FINALIZER_PATCH_ATTEMPTS || !(isInvalid(err) || isConflict(err))) throw err;
    }
    current = await client.get(namespace, name);
  }
}

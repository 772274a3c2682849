// How the replica set and pool controllers hear about the objects they control (upstream's add/update/
// delete handlers for VMIs and VMs): a controlled object wakes its owner and counts as an observed
// creation or deletion; a change of controller wakes both; an orphan is passed on to whoever may adopt it.
import type { UIDTrackingControllerExpectations } from "../../../controller/expectations.js";
import type { EventHandlers, Informer } from "../../../controller/informer.js";
import {
  controllerRefOf,
  isBeingDeleted,
  keyOf,
  type KubeObject,
  type OwnerReference,
} from "../../../controller/object.js";
import { jsonEqual } from "./equality.js";

/** resolveControllerRef: the cached owner the reference names, if it is of `kind` and still the same object. */
export function resolveControllerRef<O extends KubeObject>(
  owners: Pick<Informer<O>, "getByName">,
  kind: string,
  namespace: string,
  ref: OwnerReference | undefined,
): O | undefined {
  if (!ref || ref.kind !== kind) return undefined;
  const owner = owners.getByName(namespace, ref.name);
  return owner && owner.metadata?.uid === ref.uid ? owner : undefined;
}

export interface ControlleeHandlerOptions<O extends KubeObject, C extends KubeObject> {
  resolve: (namespace: string, ref: OwnerReference | undefined) => O | undefined;
  expectations: Pick<UIDTrackingControllerExpectations, "creationObserved" | "deletionObserved">;
  enqueue: (owner: O) => void;
  /** An orphan was added, or changed its labels or controller: who selects it may adopt it. */
  onOrphan?: (child: C) => void;
}

export function controlleeHandlers<O extends KubeObject, C extends KubeObject>(
  options: ControlleeHandlerOptions<O, C>,
): Required<EventHandlers<C>> {
  const namespaceOf = (child: C) => child.metadata?.namespace ?? "";
  const deleted = (child: C) => {
    const owner = options.resolve(namespaceOf(child), controllerRefOf(child));
    if (!owner) return;
    options.expectations.deletionObserved(keyOf(owner), keyOf(child));
    options.enqueue(owner);
  };
  return {
    add(child) {
      // Seen first while already being deleted (after a restart): no creation to observe.
      if (isBeingDeleted(child)) return deleted(child);
      const ref = controllerRefOf(child);
      if (!ref) return options.onOrphan?.(child);
      const owner = options.resolve(namespaceOf(child), ref);
      if (!owner) return;
      options.expectations.creationObserved(keyOf(owner));
      options.enqueue(owner);
    },
    update(old, child) {
      if (old.metadata?.resourceVersion === child.metadata?.resourceVersion) return;
      const labelChanged = !jsonEqual(old.metadata?.labels, child.metadata?.labels);
      if (isBeingDeleted(child)) {
        // The owner acts as soon as the deletion starts, not once the object is finally gone.
        deleted(child);
        if (labelChanged) deleted(old);
        return;
      }
      const ref = controllerRefOf(child);
      const oldRef = controllerRefOf(old);
      const refChanged = !jsonEqual(ref, oldRef);
      if (refChanged && oldRef) {
        const previous = options.resolve(namespaceOf(child), oldRef);
        if (previous) options.enqueue(previous);
      }
      if (ref) {
        const owner = options.resolve(namespaceOf(child), ref);
        if (owner) options.enqueue(owner);
        return;
      }
      if (labelChanged || refChanged) options.onOrphan?.(child);
    },
    delete: deleted,
  };
}

// The slice of Kubernetes object metadata the controller machinery relies on. Kept structural so that
// both the generated kubevirt.io types and plain core/v1 objects (as JSON from the apiserver) fit.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** The cache key client-go uses: `namespace/name`, or just `name` for cluster-scoped objects. */
export function keyOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error("object has no metadata.name");
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a `namespace/name` (or `name`) key; the namespace is "" for cluster-scoped keys. */
export function splitKey(key: string): { namespace: string; name: string } {
  const parts = key.split("/");
  if (parts.length === 1 && parts[0]) return { namespace: "", name: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected key format: "${key}"`);
}

/** The ownerReference marked `controller: true`, if any (at most one is allowed by the apiserver). */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

export function isBeingDeleted(obj: { metadata?: { deletionTimestamp?: string | null } }): boolean {
  return obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/** metav1.NewControllerRef: the owner reference a controller puts on the objects it creates. */
export function newControllerRef(
  owner: { metadata?: { name?: string; uid?: string } },
  apiVersion: string,
  kind: string,
): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? "",
    uid: owner.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

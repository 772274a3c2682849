// Group/version/resource addressing: every client call and informer names its resource this way, so
// CRDs need no discovery round trip.

export interface GroupVersionResource {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Lower-case plural, as in the URL. */
  resource: string;
  namespaced: boolean;
  /** The kind served there; lets list items (which the apiserver sends without kind) get one. */
  kind?: string;
}

export function apiVersionOf(gvr: Pick<GroupVersionResource, "group" | "version">): string {
  return gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
}

export interface ResourcePathOptions {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/** The REST path of a collection, an object, or an object's subresource. */
export function resourcePath(gvr: GroupVersionResource, opts: ResourcePathOptions = {}): string {
  const root = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  if (opts.subresource && !opts.name) throw new Error("a subresource needs an object name");
  if (gvr.namespaced && opts.name && !opts.namespace) {
    throw new Error(`${gvr.resource} is namespaced: a namespace is required to address ${opts.name}`);
  }
  const segments = [root];
  if (gvr.namespaced && opts.namespace) segments.push("namespaces", encodeURIComponent(opts.namespace));
  segments.push(gvr.resource);
  if (opts.name) segments.push(encodeURIComponent(opts.name));
  if (opts.subresource) segments.push(opts.subresource);
  return segments.join("/");
}

export const coreGVR = {
  pods: { group: "", version: "v1", resource: "pods", namespaced: true, kind: "Pod" },
  configMaps: { group: "", version: "v1", resource: "configmaps", namespaced: true, kind: "ConfigMap" },
  secrets: { group: "", version: "v1", resource: "secrets", namespaced: true, kind: "Secret" },
  services: { group: "", version: "v1", resource: "services", namespaced: true, kind: "Service" },
  events: { group: "", version: "v1", resource: "events", namespaced: true, kind: "Event" },
  nodes: { group: "", version: "v1", resource: "nodes", namespaced: false, kind: "Node" },
  namespaces: { group: "", version: "v1", resource: "namespaces", namespaced: false, kind: "Namespace" },
  persistentVolumeClaims: {
    group: "",
    version: "v1",
    resource: "persistentvolumeclaims",
    namespaced: true,
    kind: "PersistentVolumeClaim",
  },
  leases: {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespaced: true,
    kind: "Lease",
  },
} as const satisfies Record<string, GroupVersionResource>;

// The discovery documents of the subresources.kubevirt.io aggregated API, as upstream's virt-api
// serves them (pkg/virt-api/api.go): the group, its versions, and one resource list per version. The
// list names only what this virt-api serves: the server records each route it registers (servedName)
// and the list is upstream's, in upstream's order, narrowed to those.

import {
  SUBRESOURCE_GROUP,
  SUBRESOURCE_VERSIONS,
} from "../../virt-operator/resource/generate/components/names.js";

// The operator registers an APIService per version; the first version is the preferred one.
export { SUBRESOURCE_GROUP, SUBRESOURCE_VERSIONS };
export type SubresourceVersion = (typeof SUBRESOURCE_VERSIONS)[number];

/** Resource names upstream lists for each version, in its order; upstream lists no kind or verbs. */
export const UPSTREAM_SUBRESOURCE_NAMES: readonly string[] = [
  "expand-vm-spec",
  "virtualmachineinstances/vnc",
  "virtualmachineinstances/vnc/screenshot",
  "virtualmachineinstances/console",
  "virtualmachineinstances/portforward",
  "virtualmachineinstances/backup",
  "virtualmachineinstances/redefine-checkpoint",
  "virtualmachineinstances/pause",
  "virtualmachineinstances/unpause",
  "virtualmachineinstances/freeze",
  "virtualmachineinstances/unfreeze",
  "virtualmachineinstances/reset",
  "virtualmachineinstances/softreboot",
  "virtualmachines/start",
  "virtualmachines/stop",
  "virtualmachines/restart",
  "virtualmachines/migrate",
  "virtualmachines/expand-spec",
  "virtualmachines/objectgraph",
  "virtualmachines/evacuate/cancel",
  "virtualmachineinstances/guestosinfo",
  "virtualmachineinstances/userlist",
  "virtualmachineinstances/filesystemlist",
  "virtualmachineinstances/addvolume",
  "virtualmachineinstances/removevolume",
  "virtualmachineinstances/objectgraph",
  "virtualmachineinstances/sev/fetchcertchain",
  "virtualmachineinstances/sev/querylaunchmeasurement",
  "virtualmachineinstances/sev/setupsession",
  "virtualmachineinstances/sev/injectlaunchsecret",
  "virtualmachineinstances/evacuate/cancel",
];

/** Served by upstream's virt-api but missing from its resource list; discovery stays as upstream's. */
export const UNLISTED_SUBRESOURCE_NAMES: readonly string[] = [
  "virtualmachines/portforward",
  "virtualmachines/addvolume",
  "virtualmachines/removevolume",
];

const groupVersion = (version: string) => ({ groupVersion: `${SUBRESOURCE_GROUP}/${version}`, version });

export function apiGroup() {
  return {
    kind: "APIGroup",
    // Upstream spells the group's name without the "s" here; the aggregator serves the group
    // document from the APIService itself, so only direct callers see it.
    name: "subresource.kubevirt.io",
    versions: SUBRESOURCE_VERSIONS.map(groupVersion),
    preferredVersion: groupVersion(SUBRESOURCE_VERSIONS[0]),
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "" }],
  };
}

export function apiGroupList() {
  return { kind: "APIGroupList", groups: [apiGroup()] };
}

const NAMESPACE_ROUTE = `^/apis/${SUBRESOURCE_GROUP.replace(/\./g, "\\.")}/:version/namespaces/:namespace/`;
/** `<resource>/:name/<subresource>`, and a namespace-wide resource such as expand-vm-spec. */
const SUBRESOURCE_ROUTE = new RegExp(`${NAMESPACE_ROUTE}([a-z]+)/:name/(.+)$`);
const NAMESPACE_WIDE_ROUTE = new RegExp(`${NAMESPACE_ROUTE}([a-z-]+)$`);

/**
 * The discovery name of a registered route (`virtualmachines/start`), or undefined for a route that is
 * no namespaced subresource (version, healthz, the discovery documents themselves).
 */
export function servedName(routeUrl: string): string | undefined {
  const subresource = SUBRESOURCE_ROUTE.exec(routeUrl);
  const namespaceWide = NAMESPACE_WIDE_ROUTE.exec(routeUrl);
  // Parameters after the subresource (portforward/:port/:protocol) are not part of its name.
  const subresourcePath = (path: string) =>
    path
      .split("/")
      .filter((segment) => !segment.startsWith(":"))
      .join("/");
  const name = subresource
    ? `${subresource[1]}/${subresourcePath(subresource[2] ?? "")}`
    : namespaceWide?.[1];
  if (name === undefined || UNLISTED_SUBRESOURCE_NAMES.includes(name)) return undefined;
  if (!UPSTREAM_SUBRESOURCE_NAMES.includes(name)) {
    throw new Error(`route ${routeUrl} serves ${name}, which upstream's discovery does not list`);
  }
  return name;
}

export function apiResourceList(version: SubresourceVersion, served: ReadonlySet<string>) {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${SUBRESOURCE_GROUP}/${version}`,
    resources: UPSTREAM_SUBRESOURCE_NAMES.filter((name) => served.has(name)).map((name) => ({
      name,
      singularName: "",
      namespaced: true,
      kind: "",
      verbs: null,
    })),
  };
}

export function rootPaths() {
  const paths = ["/apis", "/openapi/v2"];
  for (const version of SUBRESOURCE_VERSIONS) {
    paths.push(`/apis/${SUBRESOURCE_GROUP}`, `/apis/${SUBRESOURCE_GROUP}/${version}`);
  }
  return { paths };
}

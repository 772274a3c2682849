// Who may call the aggregated API (upstream pkg/virt-api/rest/authorizer.go plus the requestheader
// rules of k8s.io/apiserver): a caller is trusted only when its TLS client certificate was signed by
// the front proxy's CA (and its CN is allowed); the user it acts for comes from the identity headers,
// and each request is checked with a SubjectAccessReview built from the URL.
import { z } from "zod";
import { SUBRESOURCE_GROUP, SUBRESOURCE_VERSIONS } from "./discovery.js";

/** Paths anyone may read: discovery, version, health. */
export const NO_AUTH_ENDPOINTS: ReadonlySet<string> = new Set([
  "/",
  "/apis",
  "/healthz",
  "/openapi/v2",
  "/openapi/v3",
  ...SUBRESOURCE_VERSIONS.flatMap((version) => [
    `/openapi/v3/apis/${SUBRESOURCE_GROUP}/${version}`,
    `/apis/${SUBRESOURCE_GROUP}/${version}`,
    `/apis/${SUBRESOURCE_GROUP}/${version}/version`,
    `/apis/${SUBRESOURCE_GROUP}/${version}/guestfs`,
    `/apis/${SUBRESOURCE_GROUP}/${version}/healthz`,
  ]),
]);

/** The front proxy settings kube-apiserver publishes in kube-system/extension-apiserver-authentication. */
export interface RequestHeaderConfig {
  clientCA: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export const AUTHENTICATION_CONFIGMAP = {
  namespace: "kube-system",
  name: "extension-apiserver-authentication",
};

const stringList = z.string().transform((text, ctx) => {
  const parsed = z.array(z.string()).safeParse(safeJson(text));
  if (!parsed.success) {
    ctx.addIssue({ code: "custom", message: `not a JSON list of strings: ${text}` });
    return z.NEVER;
  }
  return parsed.data;
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const configMapDataSchema = z.object({
  "requestheader-client-ca-file": z.string().min(1),
  "requestheader-allowed-names": stringList.optional(),
  "requestheader-username-headers": stringList.optional(),
  "requestheader-group-headers": stringList.optional(),
  "requestheader-extra-headers-prefix": stringList.optional(),
});

/** Reads the ConfigMap's data; upstream's header names are always included. */
export function requestHeaderConfigFrom(
  data: unknown,
): { ok: true; value: RequestHeaderConfig } | { ok: false; message: string } {
  const parsed = configMapDataSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const missing = !(typeof data === "object" && data !== null && "requestheader-client-ca-file" in data);
    if (missing)
      return {
        ok: false,
        message: "requestheader-client-ca-file not found in extension-apiserver-authentication ConfigMap",
      };
    return {
      ok: false,
      message: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
    };
  }
  const d = parsed.data;
  const withDefault = (defaults: string, configured: string[] | undefined) => [
    defaults,
    ...(configured ?? []),
  ];
  return {
    ok: true,
    value: {
      clientCA: d["requestheader-client-ca-file"],
      allowedNames: d["requestheader-allowed-names"] ?? [],
      usernameHeaders: withDefault("X-Remote-User", d["requestheader-username-headers"]),
      groupHeaders: withDefault("X-Remote-Group", d["requestheader-group-headers"]),
      extraHeaderPrefixes: withDefault("X-Remote-Extra-", d["requestheader-extra-headers-prefix"]),
    },
  };
}

/** What the TLS layer found out about the caller's certificate. */
export interface PeerIdentity {
  /** The certificate chains to the requestheader client CA. */
  verified: boolean;
  commonName?: string | undefined;
}

export function authenticateProxy(
  peer: PeerIdentity | undefined,
  config: RequestHeaderConfig,
): string | undefined {
  if (!peer?.verified) return "request is not authenticated";
  if (config.allowedNames.length > 0 && !config.allowedNames.includes(peer.commonName ?? "")) {
    return `client certificate CN ${JSON.stringify(peer.commonName ?? "")} is not allowed`;
  }
  return undefined;
}

/** Headers as Node's `headersDistinct` gives them: lower-case names, every value kept. */
export type DistinctHeaders = Record<string, string[] | undefined>;

export interface ResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  name?: string;
}

export interface SubjectAccessReview {
  apiVersion: "authorization.k8s.io/v1";
  kind: "SubjectAccessReview";
  spec: {
    user: string;
    groups: string[];
    extra: Record<string, string[]>;
    resourceAttributes: ResourceAttributes;
  };
}

function firstPresent(headers: DistinctHeaders, names: string[]): string[] | undefined {
  for (const name of names) {
    const values = headers[name.toLowerCase()];
    if (values !== undefined) return values;
  }
  return undefined;
}

function extrasOf(headers: DistinctHeaders, prefixes: string[]): Record<string, string[]> {
  const extras: Record<string, string[]> = {};
  for (const prefix of prefixes.map((p) => p.toLowerCase())) {
    for (const [name, values] of Object.entries(headers)) {
      if (!values || !name.startsWith(prefix)) continue;
      const encoded = name.slice(prefix.length);
      extras[safeUnescape(encoded)] = values;
    }
  }
  return extras;
}

function safeUnescape(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // kept as sent, like upstream, rather than dropped
  }
}

function rbacVerb(method: string, named: boolean): string | undefined {
  switch (method.toUpperCase()) {
    case "POST":
      return "create";
    case "GET":
    case "HEAD":
      return named ? "get" : "list";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return undefined;
  }
}

/** `/apis/{group}/{version}/namespaces/{ns}/{resource}/{name}/{subresource...}` → resource attributes. */
export function resourceAttributesFor(method: string, path: string): ResourceAttributes | string {
  const parts = path.split("/");
  const [, , group = "", version = "", , namespace = "", resource = "", name = ""] = parts;
  if (parts.length >= 9) {
    if (resource !== "virtualmachineinstances" && resource !== "virtualmachines")
      return `unknown resource type ${resource}`;
    // portforward/{port}/{protocol} is authorized as portforward.
    const subresource = parts[8] === "portforward" ? "portforward" : parts.slice(8).join("/");
    const verb = rbacVerb(method, name !== "");
    if (!verb) return `unknown http verb in request: ${method}`;
    return { namespace, verb, group, version, resource, subresource, name };
  }
  if (parts.length === 7) {
    if (resource !== "expand-vm-spec") return `unknown resource type ${resource}`;
    const verb = rbacVerb(method, false);
    if (!verb) return `unknown http verb in request: ${method}`;
    return { namespace, verb, group, version, resource };
  }
  return `unknown api endpoint: ${path}`;
}

export function accessReviewFor(
  method: string,
  path: string,
  headers: DistinctHeaders,
  config: RequestHeaderConfig,
): SubjectAccessReview | string {
  const user = firstPresent(headers, config.usernameHeaders)?.[0];
  if (user === undefined) return "a valid user header is required for authorization";
  const groups = firstPresent(headers, config.groupHeaders);
  if (groups === undefined) return "a valid group header is required for authorization";
  const attributes = resourceAttributesFor(method, path);
  if (typeof attributes === "string") return attributes;
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user,
      groups,
      extra: extrasOf(headers, config.extraHeaderPrefixes),
      resourceAttributes: attributes,
    },
  };
}

/** The apiserver's wording for a refused request, so kubectl prints the familiar line. */
export function forbiddenMessage(review: SubjectAccessReview, reason: string): string {
  const a = review.spec.resourceAttributes;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const object = a.name ? `${a.resource}.${a.group} ${JSON.stringify(a.name)}` : `${a.resource}.${a.group}`;
  const base = `${object} is forbidden: User ${JSON.stringify(review.spec.user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} in the namespace ${JSON.stringify(a.namespace)}`;
  return reason ? `${base}: ${reason}` : base;
}

// The rest client metrics every component serves (upstream pkg/monitoring/metrics/common/client): each answer
// of the apiserver counted by code, method, host, resource and verb, and each request's latency by verb and
// URL template. The Kubernetes transport feeds them through its observer (pkg/controller/rest.ts).
import { Counter, Histogram, type Registry } from "prom-client";
import type { ObservedRequest, TransportObserver } from "../../../controller/rest.js";

// Upstream's buckets, those of the apiserver's own request duration histogram.
export const REQUEST_LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

const NONE = "none";
const SEGMENT = "[A-Za-z0-9.\\-]*";
// Where the resource sits in a path, tried in upstream's order: watches, namespaced, then cluster-scoped.
const RESOURCE_PATTERNS = [
  `/api/${SEGMENT}/watch/namespaces/${SEGMENT}/(${SEGMENT})`,
  `/api/${SEGMENT}/watch/(${SEGMENT})`,
  `/apis/${SEGMENT}/${SEGMENT}/watch/namespaces/${SEGMENT}/(${SEGMENT})`,
  `/apis/${SEGMENT}/${SEGMENT}/watch/(${SEGMENT})`,
  `/api/${SEGMENT}/namespaces/${SEGMENT}/(${SEGMENT})`,
  `/apis/${SEGMENT}/${SEGMENT}/namespaces/${SEGMENT}/(${SEGMENT})`,
  `/api/${SEGMENT}/(${SEGMENT})`,
  `/apis/${SEGMENT}/${SEGMENT}/(${SEGMENT})`,
].map((pattern) => new RegExp(pattern));

/** The resource a path names; "" when none (an empty match counts, as upstream's). */
export function findResource(path: string): string {
  for (const pattern of RESOURCE_PATTERNS) {
    const match = pattern.exec(path);
    if (match) return match[1] ?? "";
  }
  return "";
}

/** Upstream's verb for an HTTP method: GET splits into WATCH, LIST and GET by the path and query. */
export function verbOf(method: string, path: string, query: URLSearchParams): string {
  switch (method) {
    case "GET":
      return getVerb(path, query);
    case "PUT":
      return "UPDATE";
    case "PATCH":
      return "PATCH";
    case "POST":
      return "CREATE";
    case "DELETE":
      return "DELETE";
    default:
      return method;
  }
}

function getVerb(path: string, query: URLSearchParams): string {
  if (path.includes("/watch/") || query.get("watch") === "true") return "WATCH";
  const resource = findResource(path);
  if (resource === "") return NONE;
  return path.endsWith(resource) ? "LIST" : "GET";
}

interface SplitRequest {
  scheme: string;
  host: string;
  basePath: string;
  path: string;
  query: URLSearchParams;
}

/** The request's parts as Go's url.URL holds them: the host keeps the port the kubeconfig spells out. */
function split(request: ObservedRequest): SplitRequest {
  const server = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(request.server);
  const [path = "", inlineQuery = ""] = request.path.split("?", 2);
  const query = new URLSearchParams(inlineQuery);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) query.set(key, String(value));
  }
  return {
    scheme: server?.[1] ?? "",
    host: server?.[2] ?? "",
    basePath: (server?.[3] ?? "").replace(/\/+$/, ""),
    path,
    query,
  };
}

/** kubevirt_rest_client_requests_total's labels for one answer. */
export function requestLabels(
  request: ObservedRequest,
  code: string,
): Record<"code" | "method" | "host" | "resource" | "verb", string> {
  const { host, basePath, path, query } = split(request);
  const fullPath = basePath + path;
  const resource = request.method === "" ? "" : findResource(fullPath);
  return {
    code,
    method: request.method,
    host: host === "" ? NONE : host,
    resource: resource === "" ? NONE : resource,
    verb: resource === "" ? NONE : verbOf(request.method, fullPath, query),
  };
}

/** kubevirt_rest_client_request_latency_seconds's labels: client-go's URL template and the verb read from it. */
export function latencyLabels(request: ObservedRequest): Record<"verb" | "url", string> {
  const { scheme, host, basePath, path, query } = split(request);
  const templated = templatePath(path);
  // As client-go: every query value becomes {value}, and an unknown API prefix drops the query too.
  const keys = templated === "/{prefix}" ? [] : [...new Set(query.keys())].sort();
  const fullPath = basePath + templated;
  const rawQuery = keys
    .map((key) => `${escapeGo(key, QUERY_SAFE)}=${escapeGo("{value}", QUERY_SAFE)}`)
    .join("&");
  return {
    // Read from the template, whose query says watch={value}: a watch by query counts as LIST or GET here.
    verb: verbOf(request.method, fullPath, new URLSearchParams()),
    url: `${scheme}://${host}${escapeGo(fullPath, PATH_SAFE)}${rawQuery === "" ? "" : `?${rawQuery}`}`,
  };
}

/** client-go's finalURLTemplate on a path: namespace and name values become {namespace} and {name}. */
export function templatePath(path: string): string {
  const segments = path.split("/");
  if (segments.length <= 2) return path;
  let index: number;
  if (segments[1] === "api") index = 3;
  else if (segments[1] === "apis") index = 4;
  else return "/{prefix}";
  const after = segments.length - index;
  const isSubresourceOfName = (segment: string | undefined) => segment === "finalize" || segment === "status";
  if (after === 2) {
    segments[index + 1] = "{name}";
  } else if (after === 3) {
    segments[index + 1] = isSubresourceOfName(segments[index + 2]) ? "{name}" : "{namespace}";
  } else if (after >= 4) {
    segments[index + 1] = "{namespace}";
    if (!isSubresourceOfName(segments[index + 3])) segments[index + 3] = "{name}";
  }
  // Go's path.Join drops empty segments and a trailing slash.
  return "/" + segments.filter((segment) => segment !== "").join("/");
}

// The bytes Go's url package leaves alone in a path and in a query component.
const PATH_SAFE = /[A-Za-z0-9\-_.~$&+,/:;=@]/;
const QUERY_SAFE = /[A-Za-z0-9\-_.~]/;

function escapeGo(text: string, safe: RegExp): string {
  let out = "";
  for (const char of text) {
    if (safe.test(char)) out += char;
    else
      for (const byte of Buffer.from(char, "utf8"))
        out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The counters and histogram, registered in a component's registry; hand it to the transport as observer. */
export class RestClientMetrics implements TransportObserver {
  private readonly requests: Counter<"code" | "method" | "host" | "resource" | "verb">;
  private readonly latency: Histogram<"verb" | "url">;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: "kubevirt_rest_client_requests_total",
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host", "resource", "verb"],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: "kubevirt_rest_client_request_latency_seconds",
      help: "Request latency in seconds. Broken down by verb and URL.",
      labelNames: ["verb", "url"],
      buckets: REQUEST_LATENCY_BUCKETS,
      registers: [registry],
    });
  }

  responded(request: ObservedRequest, code: string): void {
    this.requests.inc(requestLabels(request, code));
  }

  completed(request: ObservedRequest, seconds: number): void {
    this.latency.observe(latencyLabels(request), seconds);
  }
}

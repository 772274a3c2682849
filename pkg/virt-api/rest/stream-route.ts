// The WebSocket routes of the subresource API (upstream pkg/virt-api/api.go): a VMI's console and vnc,
// and portforward/{port}[/{protocol}] on a VMI or a VM. Upgrades reach node's `upgrade` event, never
// the router, so they are matched here.
import { decodePathSegment } from "../../util/path-segment.js";

export type StreamResource = "virtualmachineinstances" | "virtualmachines";
export type StreamSubresource = "console" | "vnc" | "portforward";

export interface StreamRoute {
  version: string;
  resource: StreamResource;
  namespace: string;
  name: string;
  subresource: StreamSubresource;
  /** portforward's path parameters, percent-decoded; protocol only when the path has it. */
  port?: string;
  protocol?: string;
  query: URLSearchParams;
}

const ROUTE =
  /^\/apis\/subresources\.kubevirt\.io\/([^/]+)\/namespaces\/([^/]+)\/(virtualmachineinstances|virtualmachines)\/([^/]+)\/(.+)$/;

/** The stream a request URL names, or undefined when it names none this API serves. */
export function parseStreamRoute(url: string, versions: readonly string[]): StreamRoute | undefined {
  const [path = "", query = ""] = url.split("?", 2);
  const match = ROUTE.exec(path);
  if (!match || !versions.includes(match[1] ?? "")) return undefined;
  const namespace = decodePathSegment(match[2] ?? "");
  const name = decodePathSegment(match[4] ?? "");
  if (namespace === undefined || name === undefined) return undefined;
  const resource = match[3] as StreamResource;
  const base = { version: match[1] ?? "", resource, namespace, name, query: new URLSearchParams(query) };
  const tail = (match[5] ?? "").split("/");
  const [subresource, ...parameters] = tail;
  if (subresource === "portforward" && (parameters.length === 1 || parameters.length === 2)) {
    const [port, protocol] = parameters.map((segment) => decodePathSegment(segment));
    if (port === undefined || (parameters.length === 2 && protocol === undefined)) return undefined;
    return { ...base, subresource, port, ...(protocol === undefined ? {} : { protocol }) };
  }
  // Upstream serves console and vnc on VMIs only.
  if (resource !== "virtualmachineinstances" || parameters.length > 0) return undefined;
  if (subresource === "console" || subresource === "vnc") return { ...base, subresource };
  return undefined;
}

import type { Container, Pod } from "./k8s-types.js";
import { parseQuantity } from "./quantity.js";

// Values the downward API exposes (env valueFrom.fieldRef/resourceFieldRef and downwardAPI volume items),
// computed as kubelet does: supported field paths only, and resource values divided by the divisor and
// rounded up, with the node's allocatable standing in for a limit the container does not set.

export class DownwardApiError extends Error {}

export interface PodRuntimeFacts {
  podIPs: string[];
  hostIPs: string[];
}

export interface NodeAllocatable {
  cpu: number;
  memory: number;
  "ephemeral-storage": number;
}

const SUBSCRIPTED = /^metadata\.(labels|annotations)\['(.+)'\]$/;

/** Formats labels/annotations as a downwardAPI volume file: sorted `key="value"` lines. */
export function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${JSON.stringify(map?.[key])}`)
    .join("\n");
}

/** The value of a pod field path; `forVolume` also allows whole label/annotation maps. */
export function podFieldValue(
  pod: Pod,
  fieldPath: string,
  runtime: PodRuntimeFacts,
  forVolume = false,
): string {
  const subscripted = SUBSCRIPTED.exec(fieldPath);
  if (subscripted?.[2]) {
    const map = subscripted[1] === "labels" ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[subscripted[2]] ?? "";
  }
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata.name;
    case "metadata.namespace":
      return pod.metadata.namespace ?? "default";
    case "metadata.uid":
      return pod.metadata.uid;
    case "spec.nodeName":
      return pod.spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.podIP":
      return runtime.podIPs[0] ?? "";
    case "status.podIPs":
      return runtime.podIPs.join(",");
    case "status.hostIP":
      return runtime.hostIPs[0] ?? "";
    case "status.hostIPs":
      return runtime.hostIPs.join(",");
  }
  if (forVolume && fieldPath === "metadata.labels") return formatMap(pod.metadata.labels);
  if (forVolume && fieldPath === "metadata.annotations") return formatMap(pod.metadata.annotations);
  throw new DownwardApiError(`unsupported fieldPath: ${fieldPath}`);
}

/** The value of `resource` (e.g. "limits.memory") for a container, as resourceFieldRef reports it. */
export function containerResourceValue(
  container: Container,
  resource: string,
  divisor: string | number | undefined,
  allocatable: NodeAllocatable,
): string {
  const [kind, name] = resource.split(".", 2) as [string, string | undefined];
  if ((kind !== "limits" && kind !== "requests") || !name) {
    throw new DownwardApiError(`unsupported container resource : ${resource}`);
  }
  const declared = container.resources?.[kind]?.[name];
  let amount: number;
  if (declared !== undefined) amount = parseQuantity(declared);
  else if (kind === "limits" && name in allocatable) amount = allocatable[name as keyof NodeAllocatable];
  else if (kind === "requests") amount = 0;
  else throw new DownwardApiError(`unsupported container resource : ${resource}`);
  const by = parseQuantity(divisor ?? 1);
  if (by === 0) throw new DownwardApiError(`invalid divisor for resource ${resource}`);
  // In milli-units, so that e.g. 100m / 1m is exactly 100 despite binary floating point.
  return String(Math.ceil(Math.round(amount * 1000) / Math.round(by * 1000)));
}

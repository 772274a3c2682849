// The pod's `k8s.v1.cni.cncf.io/network-status` annotation, written by multus (upstream
// pkg/network/multus/status.go). It is not ours: a value that does not parse is logged and read as
// no status at all, and fields of the wrong type are dropped rather than failing the whole entry.
import { z } from "zod";
import type { Logger } from "../../controller/log.js";

export const NETWORK_STATUS_ANNOTATION = "k8s.v1.cni.cncf.io/network-status";

const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

export const NetworkStatusSchema = z.looseObject({
  name: lenient(z.string()),
  interface: lenient(z.string()),
  ips: lenient(z.array(z.string())),
  mac: lenient(z.string()),
  default: lenient(z.boolean()),
  dns: lenient(z.looseObject({})),
  "device-info": lenient(z.looseObject({})),
});
export type NetworkStatus = z.infer<typeof NetworkStatusSchema>;

interface Annotated {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
}

export function networkStatusesFromPod(pod: Annotated | undefined, log?: Logger): NetworkStatus[] {
  const raw = pod?.metadata?.annotations?.[NETWORK_STATUS_ANNOTATION];
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    log?.error({ err }, "failed to unmarshall pod network status");
    return [];
  }
  const statuses = z.array(z.unknown()).safeParse(parsed);
  if (!statuses.success) {
    log?.error({ err: statuses.error }, "failed to unmarshall pod network status");
    return [];
  }
  return statuses.data.flatMap((entry) => {
    const status = NetworkStatusSchema.safeParse(entry);
    return status.success ? [status.data] : [];
  });
}

/** Statuses by pod interface name (the last one wins, as upstream's map does). */
export function networkStatusesByPodIfaceName(
  statuses: readonly NetworkStatus[],
): Map<string, NetworkStatus> {
  return new Map(statuses.map((status) => [status.interface ?? "", status]));
}

/** The interface multus marks as the pod's default network; "" when none is. */
export function lookupPodPrimaryIfaceName(statuses: readonly NetworkStatus[]): string {
  return statuses.find((status) => status.default === true && status.interface)?.interface ?? "";
}

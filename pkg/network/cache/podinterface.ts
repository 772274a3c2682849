import { join } from "node:path";
import { z } from "zod";
import { InterfaceSchema } from "../../api/generated/v1.js";
import { JsonCacheFile } from "./cache.js";

// What virt-handler learned about a pod interface before it changed it (upstream
// cache/podinterface.go): the VMI interface, the pod IPs (reported in the VMI status), and the
// preparation state. `discovered`, `linuxStackBefore` and `natDigest` are this port's additions: the original link
// (index, MAC, MTU, addresses, routes) and sysctls, so that a repeated setup and the teardown do not
// depend on a link the setup has already changed.

export const VIRT_PRIVATE_DIR = "/var/run/kubevirt-private";

export const PodIfaceState = { Pending: 0, Started: 1, Finished: 2 } as const;

const IPAddressSchema = z.object({ ip: z.string(), prefixLength: z.number().int() });

const RouteSchema = z.object({
  destination: z.string(),
  nextHopInterface: z.string(),
  nextHopAddress: z.string().optional(),
  protocol: z.string().optional(),
});

export const DiscoveredPodInterfaceSchema = z.object({
  name: z.string(),
  index: z.number().int(),
  macAddress: z.string(),
  mtu: z.number().int(),
  ipv4: z.array(IPAddressSchema),
  ipv6: z.array(IPAddressSchema),
  /** IPv4 routes of the main table through this link. */
  routes: z.array(RouteSchema),
});

export type DiscoveredPodInterface = z.infer<typeof DiscoveredPodInterfaceSchema>;

export const PodIfaceCacheDataSchema = z.object({
  iface: InterfaceSchema.optional(),
  podIP: z.string().optional(),
  podIPs: z.array(z.string()).optional(),
  networkState: z.number().int().optional(),
  discovered: DiscoveredPodInterfaceSchema.optional(),
  linuxStackBefore: z.object({ arpIgnore: z.number().int(), forwarding: z.boolean() }).optional(),
  /** Digests of the masquerade NAT as applied (see setup/netpod/masquerade). */
  natDigest: z.object({ script: z.string(), listing: z.string() }).optional(),
});

export type PodIfaceCacheData = z.infer<typeof PodIfaceCacheDataSchema>;

/** `<private dir>/network-info-cache/<vmi uid>/<vmi interface name>`, in virt-handler's filesystem. */
export function podInterfaceCache(privateDir: string, vmiUID: string, vmiIfaceName: string) {
  return new JsonCacheFile(
    join(privateDir, "network-info-cache", vmiUID, vmiIfaceName),
    PodIfaceCacheDataSchema,
  );
}

import { join } from "node:path";
import { z } from "zod";
import { JsonCacheFile } from "./cache.js";
import { VIRT_PRIVATE_DIR } from "./podinterface.js";

// The cached interface config virt-handler hands to virt-launcher (upstream cache/dhcpconfig.go,
// `vif-cache-<pod interface>.json` in the launcher's private directory): what the guest's DHCP server
// must offer. Upstream's launcher looks up the MTU and tap name itself; here the handler, which made
// them, writes them too, so the launcher needs no link inspection.

const RouteSchema = z.object({ destination: z.string(), gateway: z.string().optional() });

export const DHCPConfigSchema = z.object({
  /** The pod interface name (eth0). */
  name: z.string().optional(),
  /** The guest's address with prefix length (`10.244.1.5/24`, `10.0.2.2/24`). */
  ip: z.string().optional(),
  /** The guest's MAC, when the handler knows it (bridge binding, or a MAC in the VMI spec). */
  mac: z.string().optional(),
  /** The DHCP server's own address on the bridge. */
  advertisingIPAddr: z.string().optional(),
  gateway: z.string().optional(),
  /** Routes for option 121; upstream's are the pod routes other than the local subnet. */
  routes: z.array(RouteSchema).optional(),
  mtu: z.number().int().optional(),
  /** No IPv4 on the pod interface: no DHCP server. */
  ipamDisabled: z.boolean(),
  subdomain: z.string().optional(),
  tapName: z.string().optional(),
  bridgeName: z.string().optional(),
});

export type DHCPConfig = z.infer<typeof DHCPConfigSchema>;

/** The launcher's root as seen by virt-handler. */
export function launcherRootFs(launcherPid: number | "self"): string {
  return `/proc/${launcherPid}/root`;
}

/**
 * `<root>/var/run/kubevirt-private/vif-cache-<pod interface>.json`; `privateDirInRoot` is that directory
 * with the launcher's symlinks already resolved inside its root (e.g. `/run/kubevirt-private`).
 */
export function dhcpInterfaceCache(
  rootFs: string,
  podIfaceName: string,
  ownerId?: number,
  privateDirInRoot: string = VIRT_PRIVATE_DIR,
) {
  const path = join(rootFs, privateDirInRoot, `vif-cache-${podIfaceName}.json`);
  return new JsonCacheFile(path, DHCPConfigSchema, { ownerId, confineTo: rootFs });
}

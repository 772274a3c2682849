// The pod IPs the network setup cached for each of a VMI's interfaces (upstream reads the same
// pod interface cache in netstat), for `status.interfaces`.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { podInterfaceCache } from "../network/cache/podinterface.js";
import type { PodInterfaceIPs } from "./vmi-status.js";

export async function cachedPodInterfaceIPs(
  privateDir: string,
  vmi: VirtualMachineInstance,
): Promise<PodInterfaceIPs> {
  const uid = vmi.metadata?.uid ?? "";
  const found = new Map<string, { podIP?: string; podIPs?: string[] }>();
  for (const iface of vmi.spec.domain.devices.interfaces ?? []) {
    const cached = await podInterfaceCache(privateDir, uid, iface.name).read();
    if (cached?.podIP)
      found.set(iface.name, { podIP: cached.podIP, podIPs: cached.podIPs ?? [cached.podIP] });
  }
  return found;
}

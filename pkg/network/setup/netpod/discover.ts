import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import { readStatus } from "../../driver/nmstate/status.js";
import type { Status } from "../../driver/nmstate/types.js";
import { NsenterExec } from "../../driver/netns-exec.js";
import type { NetnsExec } from "../../driver/netns-exec.js";

// The first phase of the pod network setup (upstream netpod/discover.go): read the pod interface as
// CNI left it, before anything changes it.

/** The pod interface `ifaceName` of the namespace at `netns` (a path such as /proc/<pid>/ns/net). */
export async function discoverPodInterface(
  netns: string | NetnsExec,
  ifaceName: string,
): Promise<DiscoveredPodInterface> {
  const exec = typeof netns === "string" ? new NsenterExec(netns) : netns;
  return podInterfaceFromStatus(await readStatus(exec), ifaceName);
}

export function podInterfaceFromStatus(status: Status, ifaceName: string): DiscoveredPodInterface {
  const iface = status.interfaces.find((candidate) => candidate.name === ifaceName);
  if (!iface || iface.index === undefined) throw new Error(`pod link (${ifaceName}) is missing`);
  return {
    name: iface.name,
    index: iface.index,
    macAddress: iface.macAddress ?? "",
    mtu: iface.mtu ?? 0,
    ipv4: iface.ipv4?.enabled ? (iface.ipv4.address ?? []) : [],
    ipv6: iface.ipv6?.enabled ? (iface.ipv6.address ?? []) : [],
    routes: status.routes.filter((route) => route.nextHopInterface === ifaceName),
  };
}

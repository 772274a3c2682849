import type { IpLink, IpRoute } from "../iproute.js";
import { isAdministrativelyUp, listIPv4Routes, listLinks } from "../iproute.js";
import type { NetnsExec } from "../netns-exec.js";
import { IPV4_ARP_IGNORE_ALL, IPV4_FORWARDING, readSysctl } from "../procsys.js";
import type { IPAddress, Interface, Route, Status } from "./types.js";
import { IfaceStateDown, IfaceStateUp, TypeTap } from "./types.js";

// Reads the namespace's current network state (upstream nmstate.Read).

export async function readStatus(exec: NetnsExec): Promise<Status> {
  const [links, routes, arpIgnore, forwarding] = await Promise.all([
    listLinks(exec),
    listIPv4Routes(exec),
    readSysctl(exec, IPV4_ARP_IGNORE_ALL),
    readSysctl(exec, IPV4_FORWARDING),
  ]);
  return {
    interfaces: links.map(interfaceFromLink),
    routes: routes.flatMap(routeFromIp),
    linuxStack: { ipv4: { arpIgnore, forwarding: forwarding === 1 } },
  };
}

export function interfaceFromLink(link: IpLink): Interface {
  const addresses = (family: string): IPAddress[] =>
    link.addr_info
      .filter((info) => info.family === family)
      .map((info) => ({ ip: info.local, prefixLength: info.prefixlen }));
  const ipv4 = addresses("inet");
  const ipv6 = addresses("inet6");
  const iface: Interface = {
    name: link.ifname,
    index: link.ifindex,
    typeName: normalizeLinkTypeName(link),
    state: isAdministrativelyUp(link) ? IfaceStateUp : IfaceStateDown,
    mtu: link.mtu,
    ipv4: ipv4.length > 0 ? { enabled: true, address: ipv4 } : { enabled: false },
    ipv6: ipv6.length > 0 ? { enabled: true, address: ipv6 } : { enabled: false },
  };
  if (link.address !== undefined) iface.macAddress = link.address;
  if (link.master !== undefined) iface.controller = link.master;
  const tunData = link.linkinfo?.info_data;
  if (iface.typeName === TypeTap && tunData) {
    iface.tap = { queues: tunData.multi_queue ? 2 : 0, uid: tunData.user ?? 0, gid: tunData.group ?? 0 };
  }
  const learning = link.linkinfo?.info_slave_data?.learning;
  if (learning !== undefined) iface.linuxStack = { portLearning: learning };
  return iface;
}

/** `tun` links in tap mode are "tap"; other kinds keep the kernel's name; none is "". */
function normalizeLinkTypeName(link: IpLink): string {
  const kind = link.linkinfo?.info_kind ?? "";
  if (kind === "tun" && link.linkinfo?.info_data?.type === "tap") return TypeTap;
  return kind;
}

/** A route of `ip -j route show` in nmstate's terms; none for a route without a device. */
export function routeFromIp(route: IpRoute): Route[] {
  if (route.dev === undefined) return [];
  const destination =
    route.dst === "default" ? "0.0.0.0/0" : route.dst.includes("/") ? route.dst : `${route.dst}/32`;
  const result: Route = { destination, nextHopInterface: route.dev };
  if (route.gateway !== undefined) result.nextHopAddress = route.gateway;
  if (route.protocol !== undefined) result.protocol = route.protocol;
  return [result];
}

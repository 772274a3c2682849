import type { NetnsExec } from "./netns-exec.js";

// Network sysctls of the namespace (upstream pkg/network/driver/procsys). Keys use '/' separators so
// that a link name with a dot stays one path element.

export const IPV4_FORWARDING = "net/ipv4/ip_forward";
export const IPV4_ARP_IGNORE_ALL = "net/ipv4/conf/all/arp_ignore";

export function routeLocalNetKey(linkName: string): string {
  return `net/ipv4/conf/${linkName}/route_localnet`;
}

export async function readSysctl(exec: NetnsExec, key: string): Promise<number> {
  const value = Number((await exec.query("sysctl", ["-n", key])).trim());
  if (!Number.isInteger(value)) throw new Error(`unexpected value of ${key}`);
  return value;
}

/** Sets a sysctl unless it already has the value. */
export async function ensureSysctl(exec: NetnsExec, key: string, value: number): Promise<void> {
  if ((await readSysctl(exec, key)) === value) return;
  await exec.change("sysctl", ["-q", "-w", `${key}=${value}`]);
}

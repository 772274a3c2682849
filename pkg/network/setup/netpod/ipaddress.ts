import type { IPAddress } from "../../driver/nmstate/types.js";
import { isGlobalUnicastIPv4 } from "../../netmachinery/ip.js";

/** The first global unicast IPv4 address (upstream firstIPGlobalUnicast): the pod IP. */
export function firstIPv4GlobalUnicast(addresses: readonly IPAddress[]): IPAddress | undefined {
  return addresses.find((address) => isGlobalUnicastIPv4(address.ip));
}

/** IPv6 addresses other than link-local ones, which the kernel manages per link. */
export function withoutIPv6LinkLocal(addresses: readonly IPAddress[]): IPAddress[] {
  return addresses.filter((address) => !address.ip.toLowerCase().startsWith("fe80:"));
}

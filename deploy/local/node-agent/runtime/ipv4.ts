// IPv4 addresses and CIDR blocks as plain numbers: enough arithmetic for the node's pod range (gateway,
// allocatable hosts) and for checking that configured ranges do not escape what the cluster owns.

export interface Ipv4Cidr {
  /** The network address (host bits cleared). */
  network: number;
  prefixLength: number;
}

export class Ipv4Error extends Error {
  override readonly name = "Ipv4Error";
}

export function parseIpv4(text: string): number {
  const parts = text.split(".");
  if (parts.length !== 4) throw new Ipv4Error(`invalid IPv4 address "${text}"`);
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) throw new Ipv4Error(`invalid IPv4 address "${text}"`);
    value = value * 256 + Number(part);
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

function hostCount(prefixLength: number): number {
  return 2 ** (32 - prefixLength);
}

export function parseCidr(text: string): Ipv4Cidr {
  const [address, length, extra] = text.split("/");
  if (address === undefined || length === undefined || extra !== undefined || !/^\d{1,2}$/.test(length)) {
    throw new Ipv4Error(`invalid CIDR "${text}"`);
  }
  const prefixLength = Number(length);
  if (prefixLength > 32) throw new Ipv4Error(`invalid CIDR "${text}"`);
  const value = parseIpv4(address);
  const size = hostCount(prefixLength);
  return { network: value - (value % size), prefixLength };
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.network)}/${cidr.prefixLength}`;
}

export function cidrContains(cidr: Ipv4Cidr, address: number): boolean {
  return address >= cidr.network && address < cidr.network + hostCount(cidr.prefixLength);
}

/** The usable host addresses of a block, without the network and broadcast addresses. */
export function hostRange(cidr: Ipv4Cidr): { first: number; last: number } {
  if (cidr.prefixLength > 30) throw new Ipv4Error(`${formatCidr(cidr)} is too small for pods`);
  return { first: cidr.network + 1, last: cidr.network + hostCount(cidr.prefixLength) - 2 };
}

/** The node's own address on its bridge: the first host address, as kubenet-style setups use it. */
export function gatewayOf(cidr: Ipv4Cidr): number {
  return hostRange(cidr).first;
}

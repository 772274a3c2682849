// IPv4 arithmetic the network setup needs (upstream pkg/network/netmachinery plus the few net.IP
// helpers it leans on). Addresses travel as dotted strings; numbers are only used inside.

const IPV4_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The address as an unsigned 32-bit number, or undefined when the text is not a dotted IPv4 address. */
export function parseIPv4(text: string): number | undefined {
  const match = IPV4_PATTERN.exec(text);
  if (!match) return undefined;
  let value = 0;
  for (const part of match.slice(1)) {
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

export function ipv4Bytes(text: string): number[] {
  const value = mustParseIPv4(text);
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}

export function mustParseIPv4(text: string): number {
  const value = parseIPv4(text);
  if (value === undefined) throw new Error(`invalid IPv4 address: ${text}`);
  return value;
}

/** The following address (upstream netmachinery.NextIP), wrapping at the end of the space. */
export function nextIP(text: string): string {
  return formatIPv4((mustParseIPv4(text) + 1) >>> 0);
}

export interface IPv4Address {
  ip: string;
  prefixLength: number;
}

/** Parses `a.b.c.d/len`; undefined when malformed. */
export function parseCIDR(text: string): IPv4Address | undefined {
  const [ip, prefix, ...rest] = text.split("/");
  if (ip === undefined || prefix === undefined || rest.length > 0 || !/^\d{1,2}$/.test(prefix))
    return undefined;
  const prefixLength = Number(prefix);
  if (parseIPv4(ip) === undefined || prefixLength > 32) return undefined;
  return { ip, prefixLength };
}

export function formatCIDR(address: IPv4Address): string {
  return `${address.ip}/${address.prefixLength}`;
}

export function maskOf(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

/** The dotted netmask of a prefix length (24 → 255.255.255.0). */
export function prefixToNetmask(prefixLength: number): string {
  return formatIPv4(maskOf(prefixLength));
}

/** The network address of an address and prefix (10.0.2.7/24 → 10.0.2.0). */
export function networkAddress(address: IPv4Address): string {
  return formatIPv4((mustParseIPv4(address.ip) & maskOf(address.prefixLength)) >>> 0);
}

/**
 * Go's net.IP.IsGlobalUnicast for IPv4: neither unspecified, loopback, multicast, link-local
 * (169.254/16, where the bridge binding's fake bridge address lives) nor the limited broadcast.
 */
export function isGlobalUnicastIPv4(text: string): boolean {
  const value = parseIPv4(text);
  if (value === undefined) return false;
  const firstOctet = value >>> 24;
  const isLinkLocal = value >>> 16 === (169 << 8) + 254;
  return value !== 0 && value !== 0xffffffff && firstOctet !== 127 && firstOctet < 224 && !isLinkLocal;
}

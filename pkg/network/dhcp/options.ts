import type { DHCPOptions } from "../../api/generated/v1.js";
import { getDomainName } from "../dns/resolveconf.js";
import { ipv4Bytes, parseCIDR, parseIPv4, prefixToNetmask } from "../netmachinery/ip.js";
import { OptionCode } from "./packet.js";

// The options the VM's DHCP server hands out (upstream pkg/network/dhcp/server.prepareDHCPOptions),
// with upstream's validation messages.

export const ERROR_SEARCH_DOMAIN_NOT_VALID = "Search domain is not valid";
export const ERROR_SEARCH_DOMAIN_TOO_LONG = "Search domains length exceeded allowable size";

/** A route for option 121; `destination` 0.0.0.0/0 is the default route. */
export interface DhcpRoute {
  destination: string;
  gateway?: string | undefined;
}

export interface DhcpOptionsInput {
  clientPrefixLength?: number | undefined;
  routerIP?: string | undefined;
  dnsServers: readonly string[];
  routes?: readonly DhcpRoute[] | undefined;
  searchDomains: readonly string[];
  mtu: number;
  hostname: string;
  custom?: DHCPOptions | undefined;
}

export function prepareDhcpOptions(input: DhcpOptionsInput): Map<number, Buffer> {
  const mtu = Buffer.alloc(2);
  mtu.writeUInt16BE(input.mtu);
  const options = new Map<number, Buffer>([[OptionCode.InterfaceMTU, mtu]]);
  // Upstream always writes option 6; an empty one only confuses clients, so it is left out.
  if (input.dnsServers.length > 0) options.set(OptionCode.DomainNameServer, addressList(input.dnsServers));
  if (input.clientPrefixLength !== undefined) {
    options.set(OptionCode.SubnetMask, Buffer.from(ipv4Bytes(prefixToNetmask(input.clientPrefixLength))));
  }
  if (input.routerIP) options.set(OptionCode.Router, Buffer.from(ipv4Bytes(input.routerIP)));
  const routes = formClasslessRoutes(input.routes ?? []);
  if (routes.length > 0) options.set(OptionCode.ClasslessRouteFormat, routes);
  const search = convertSearchDomainsToBytes(input.searchDomains);
  if (search.length > 0) options.set(OptionCode.DomainSearch, search);
  options.set(OptionCode.HostName, Buffer.from(input.hostname));
  // Windows asks for the domain name and resolves with it.
  const domainName = getDomainName(input.searchDomains);
  if (domainName !== "") options.set(OptionCode.DomainName, Buffer.from(domainName));
  if (input.custom) addCustomOptions(options, input.custom);
  return options;
}

function addCustomOptions(options: Map<number, Buffer>, custom: DHCPOptions): void {
  if (custom.tftpServerName) options.set(OptionCode.TFTPServerName, Buffer.from(custom.tftpServerName));
  if (custom.bootFileName) options.set(OptionCode.BootFileName, Buffer.from(custom.bootFileName));
  if (custom.ntpServers && custom.ntpServers.length > 0) {
    for (const server of custom.ntpServers) {
      if (parseIPv4(server) === undefined)
        throw new Error(`Could not parse NTP server as IPv4 address: ${server}`);
    }
    options.set(OptionCode.NetworkTimeProtocolServers, addressList(custom.ntpServers));
  }
  for (const privateOption of custom.privateOptions ?? []) {
    // Only the site-specific range (RFC 2132 section 2) is the user's to set.
    if (privateOption.option >= 224 && privateOption.option <= 254) {
      options.set(privateOption.option, Buffer.from(privateOption.value));
    }
  }
}

function addressList(addresses: readonly string[]): Buffer {
  return Buffer.from(addresses.flatMap((address) => ipv4Bytes(address)));
}

/**
 * Option 121 (RFC 3442): per route the prefix length, the significant octets of the destination and
 * the gateway (0.0.0.0 for an on-link route). Default routes go last, so that the routes to their
 * gateways exist when the client installs them.
 */
export function formClasslessRoutes(routes: readonly DhcpRoute[]): Buffer {
  const isDefault = (route: DhcpRoute): boolean => parseCIDR(route.destination)?.prefixLength === 0;
  const ordered = [...routes.filter((route) => !isDefault(route)), ...routes.filter(isDefault)];
  const bytes: number[] = [];
  for (const route of ordered) {
    const destination = parseCIDR(route.destination);
    if (!destination) throw new Error(`invalid route destination: ${route.destination}`);
    const significantOctets = Math.ceil(destination.prefixLength / 8);
    bytes.push(destination.prefixLength, ...ipv4Bytes(destination.ip).slice(0, significantOctets));
    bytes.push(...ipv4Bytes(route.gateway ?? "0.0.0.0"));
  }
  return Buffer.from(bytes);
}

// A search domain as upstream accepts it: lower-case labels, ASCII only.
const SEARCH_DOMAIN_PATTERN =
  /^(?:[_a-z0-9](?:[_a-z0-9-]{0,61}[a-z0-9])?\.)*(?:[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?)?$/;
const MAX_SEARCH_DOMAIN_LENGTH = 253;
const MAX_OPTION_DATA_LENGTH = 255;

export function isValidSearchDomain(domain: string): boolean {
  return domain.length <= MAX_SEARCH_DOMAIN_LENGTH && SEARCH_DOMAIN_PATTERN.test(domain);
}

/** Option 119 (RFC 3397): each domain as length-prefixed labels ending in a zero byte, uncompressed. */
export function convertSearchDomainsToBytes(domains: readonly string[]): Buffer {
  const bytes: number[] = [];
  for (const domain of domains) {
    if (!isValidSearchDomain(domain)) throw new Error(`${ERROR_SEARCH_DOMAIN_NOT_VALID}: '${domain}'`);
    for (const label of domain.split(".")) bytes.push(label.length, ...Buffer.from(label));
    bytes.push(0);
  }
  if (bytes.length > MAX_OPTION_DATA_LENGTH) {
    throw new Error(`${ERROR_SEARCH_DOMAIN_TOO_LONG}: was ${bytes.length} long`);
  }
  return Buffer.from(bytes);
}

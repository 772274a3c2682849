import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DHCPOptions } from "../../api/generated/v1.js";
import type { DHCPConfig } from "../cache/dhcpconfig.js";
import { VIRT_PRIVATE_DIR } from "../cache/podinterface.js";
import { domainNameWithSubdomain, parseNameservers, parseSearchDomains } from "../dns/resolveconf.js";
import { generateBridgeName } from "../link/names.js";
import { normalizeMacAddress } from "../link/mac.js";
import { parseCIDR } from "../netmachinery/ip.js";
import type { DhcpServerConfig } from "./server-config.js";
import { DhcpServerConfigSchema } from "./server-config.js";

// virt-launcher's side of DHCP (upstream pkg/network/dhcp/configurator.go): turn the cached interface
// config the handler wrote into a server configuration, with the pod's DNS settings, and start the
// server once per pod interface.

export interface LauncherDhcpContext {
  /** The content of the pod's /etc/resolv.conf. */
  resolvConf: string;
  /** The guest's hostname: the launcher pod's hostname, i.e. the sanitized VMI hostname. */
  hostname: string;
  /** spec.subdomain of the VMI. */
  subdomain?: string | undefined;
  dhcpOptions?: DHCPOptions | undefined;
  /** The MAC the domain's interface gets, when the cache has none (masquerade without spec MAC). */
  domainMAC?: string | undefined;
}

/** The server configuration, or undefined when the interface has no IPv4 to hand out. */
export function generateDhcpServerConfig(
  cached: DHCPConfig,
  context: LauncherDhcpContext,
): DhcpServerConfig | undefined {
  if (cached.ipamDisabled) return undefined;
  const address = cached.ip ? parseCIDR(cached.ip) : undefined;
  if (!address || !cached.name || !cached.advertisingIPAddr || cached.mtu === undefined) {
    throw new Error(`incomplete cached interface config for ${cached.name ?? "an interface"}`);
  }
  const clientMAC = cached.mac ?? context.domainMAC;
  if (!clientMAC) throw new Error(`no MAC address known for the guest interface on ${cached.name}`);
  const searchDomains = parseSearchDomains(context.resolvConf);
  const domain = domainNameWithSubdomain(searchDomains, context.subdomain ?? cached.subdomain);
  return DhcpServerConfigSchema.parse({
    serverInterface: cached.bridgeName ?? generateBridgeName(cached.name),
    serverIP: cached.advertisingIPAddr,
    clientMAC: normalizeMacAddress(clientMAC),
    clientIP: address.ip,
    clientPrefixLength: address.prefixLength,
    routerIP: cached.gateway,
    dnsServers: parseNameservers(context.resolvConf).ipv4,
    searchDomains: domain ? [domain, ...searchDomains] : searchDomains,
    routes: cached.routes,
    mtu: cached.mtu,
    hostname: context.hostname,
    dhcpOptions: context.dhcpOptions,
  });
}

export const DEFAULT_DHCP_STARTED_DIRECTORY = VIRT_PRIVATE_DIR;

/**
 * Starts the server unless the marker `dhcp_started-<pod interface>` says it already runs: the
 * launcher's sync is repeated, the server must start once.
 */
export async function ensureDhcpServerStarted(
  podIfaceName: string,
  config: DhcpServerConfig | undefined,
  start: (config: DhcpServerConfig) => Promise<void>,
  startedDirectory: string = DEFAULT_DHCP_STARTED_DIRECTORY,
): Promise<void> {
  if (!config) return;
  const marker = join(startedDirectory, `dhcp_started-${podIfaceName}`);
  if (await exists(marker)) return;
  try {
    await start(config);
  } catch (error) {
    throw new Error(`failed to start DHCP server for interface ${podIfaceName}`, { cause: error });
  }
  await writeFile(marker, "");
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

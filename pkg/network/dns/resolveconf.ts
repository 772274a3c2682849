import { isIPv4, isIPv6 } from "node:net";

// The pod's DNS settings as handed to the guest by DHCP (upstream pkg/network/dns/resolveconf.go).

const DEFAULT_DNS = "8.8.8.8";
const DEFAULT_SEARCH_DOMAIN = "cluster.local";
const K8S_SERVICE_INFIX = ".svc.";

export interface Nameservers {
  ipv4: string[];
  ipv6: string[];
}

/** `nameserver` lines split by family; upstream falls back to 8.8.8.8 when there are none. */
export function parseNameservers(content: string): Nameservers {
  const result: Nameservers = { ipv4: [], ipv6: [] };
  for (const line of content.split("\n")) {
    if (!line.startsWith("nameserver")) continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 2 || fields[1] === undefined) continue;
    const server = fields[1];
    if (isIPv4(server)) result.ipv4.push(server);
    else if (isIPv6(server)) result.ipv6.push(server);
  }
  if (result.ipv4.length === 0 && result.ipv6.length === 0) result.ipv4.push(DEFAULT_DNS);
  return result;
}

/** Every domain of every `search` line, lower-cased; `cluster.local` when there is none. */
export function parseSearchDomains(content: string): string[] {
  const domains = content
    .split("\n")
    .filter((line) => line.startsWith("search"))
    .flatMap((line) => line.slice("search".length).trim().split(/\s+/))
    .filter((domain) => domain !== "")
    .map((domain) => domain.toLowerCase());
  return domains.length > 0 ? domains : [DEFAULT_SEARCH_DOMAIN];
}

/** The longest search domain: the closest thing to the pod's own domain. */
export function getDomainName(searchDomains: readonly string[]): string {
  return searchDomains.reduce((longest, domain) => (domain.length > longest.length ? domain : longest), "");
}

/**
 * The `<subdomain>.<namespace>.svc.<cluster domain>` search domain that Kubernetes leaves out of
 * resolv.conf (old glibc limits), or "" when there is no subdomain or it is already present.
 */
export function domainNameWithSubdomain(
  searchDomains: readonly string[],
  subdomain: string | undefined,
): string {
  if (!subdomain) return "";
  const serviceDomain = getDomainName(searchDomains.filter((domain) => domain.includes(K8S_SERVICE_INFIX)));
  if (serviceDomain !== "" && !serviceDomain.startsWith(subdomain + "."))
    return `${subdomain}.${serviceDomain}`;
  return "";
}

const DNS1123_LABEL_MAX_LENGTH = 63;

/** The guest's hostname as upstream's launcher pod gets it: spec.hostname, else the VMI name up to
 * its first dot, cut to a DNS label's length (upstream pkg/util/net/dns.SanitizeHostname). */
export function sanitizeHostname(vmiName: string, specHostname: string | undefined): string {
  if (specHostname) return specHostname;
  return (vmiName.split(".")[0] ?? "").slice(0, DNS1123_LABEL_MAX_LENGTH);
}

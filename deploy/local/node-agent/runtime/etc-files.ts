// The /etc/hosts, /etc/hostname and /etc/resolv.conf every container of a pod gets, as kubelet and
// containerd write them.
import type { DNSConfig } from "../pod-runtime.js";

const HOSTS_HEADER = "# Kubernetes-managed hosts file.";
const HOST_NETWORK_HEADER = "# Kubernetes-managed hosts file (host network).";
const STANDARD_ENTRIES = [
  "127.0.0.1\tlocalhost",
  "::1\tlocalhost ip6-localhost ip6-loopback",
  "fe00::0\tip6-localnet",
  "fe00::0\tip6-mcastprefix",
  "fe00::1\tip6-allnodes",
  "fe00::2\tip6-allrouters",
];

/** kubelet's hosts file for a pod with its own network: the standard entries plus the pod's own name. */
export function podHostsFile(podIPs: readonly string[], hostname: string): string {
  return [HOSTS_HEADER, ...STANDARD_ENTRIES, ...podIPs.map((ip) => `${ip}\t${hostname}`), ""].join("\n");
}

/** kubelet's hosts file for a hostNetwork pod: the node's own hosts file under kubelet's header. */
export function hostNetworkHostsFile(nodeHostsFile: string): string {
  return `${HOST_NETWORK_HEADER}\n${nodeHostsFile}`;
}

export function hostnameFile(hostname: string): string {
  return `${hostname}\n`;
}

/**
 * The pod's resolv.conf as containerd writes it from the sandbox's DNS config (search, nameservers,
 * options); an empty config gives "", for which containerd copies the node's own file instead.
 */
export function resolvConfFile(dns: DNSConfig): string {
  return [
    ...(dns.searches.length > 0 ? [`search ${dns.searches.join(" ")}`] : []),
    ...dns.servers.map((server) => `nameserver ${server}`),
    ...(dns.options.length > 0 ? [`options ${dns.options.join(" ")}`] : []),
  ]
    .map((line) => `${line}\n`)
    .join("");
}

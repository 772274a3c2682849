// A pod's DNS resolver configuration, decided as kubelet's DNS configurer decides it
// (pkg/kubelet/network/dns/dns.go, GetPodDNS): the pod's dnsPolicy picks the base (the cluster DNS,
// the node's resolv.conf, or nothing), the pod's dnsConfig is merged on top, and the result is cut to
// the resolver's limits. The runtime turns the result into the container's /etc/resolv.conf.

import { readFile } from "node:fs/promises";
import type { DNSConfig } from "./pod-runtime.js";

export type { DNSConfig };

/** kubelet's --cluster-dns, --cluster-domain and --resolv-conf (already read). */
export interface DNSSettings {
  clusterDNS: readonly string[];
  clusterDomain: string;
  /** The node's resolv.conf as parsed; undefined when --resolv-conf is "" (no host resolver). */
  hostDNS: DNSConfig | undefined;
}

export interface PodDNSConfigOption {
  name?: string | undefined;
  value?: string | undefined;
}

/** The parts of a Pod kubelet looks at. */
export interface PodDNSInput {
  metadata: { name?: string | undefined; namespace?: string | undefined; uid?: string | undefined };
  spec: {
    dnsPolicy?: string | undefined;
    hostNetwork?: boolean | undefined;
    dnsConfig?:
      | {
          nameservers?: string[] | undefined;
          searches?: string[] | undefined;
          options?: PodDNSConfigOption[] | undefined;
        }
      | undefined;
  };
}

/** A Warning event kubelet records while forming the configuration. */
export interface DNSWarning {
  reason: "DNSConfigForming" | "MissingClusterDNS";
  message: string;
}

export interface PodDNS {
  config: DNSConfig;
  warnings: DNSWarning[];
}

// Limits from k8s.io/kubernetes/pkg/apis/core/validation (ExpandedDNSConfig is GA since 1.28).
const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const DEFAULT_DNS_OPTIONS = ["ndots:5"];
const MISSING_CLUSTER_DNS =
  'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';

/** kubelet's format.Pod: name_namespace(uid). */
const formatPod = (pod: PodDNSInput): string =>
  `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;

type PodDNSType = "cluster" | "host" | "none";

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** resolv.conf as kubelet reads it: nameservers accumulate, the last search and options lines win. */
export function parseResolvConf(text: string): DNSConfig {
  const config: DNSConfig = { servers: [], searches: [], options: [] };
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) continue;
    const [keyword, ...fields] = trimmed.split(/\s+/);
    if (keyword === "nameserver" && fields[0]) config.servers.push(fields[0]);
    // the same domain with and without its trailing dot counts once
    if (keyword === "search") config.searches = fields.map((s) => s.replace(/\.$/, ""));
    if (keyword === "options") config.options = fields;
  }
  return config;
}

/** ClusterFirst on the host network falls back to Default; an unknown policy is treated as ClusterFirst. */
export function podDNSType(pod: PodDNSInput): PodDNSType {
  switch (pod.spec.dnsPolicy ?? "ClusterFirst") {
    case "None":
      return "none";
    case "ClusterFirstWithHostNet":
      return "cluster";
    case "ClusterFirst":
      return pod.spec.hostNetwork ? "host" : "cluster";
    case "Default":
      return "host";
    default:
      return "cluster";
  }
}

function clusterSearches(hostSearches: readonly string[], namespace: string, domain: string): string[] {
  if (domain === "") return [...hostSearches];
  return unique([`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearches]);
}

/** Options given by the pod override the base's of the same name (name or name:value). */
export function mergeDNSOptions(base: readonly string[], pod: readonly PodDNSConfigOption[]): string[] {
  const merged = new Map<string, string>();
  for (const option of base) {
    const colon = option.indexOf(":");
    if (colon === -1) merged.set(option, "");
    else merged.set(option.slice(0, colon), option.slice(colon + 1));
  }
  for (const option of pod) merged.set(option.name ?? "", option.value ?? "");
  // kubelet iterates a Go map here, so its order is arbitrary; insertion order keeps the file stable.
  return [...merged].map(([name, value]) => (value === "" ? name : `${name}:${value}`));
}

function fitNameservers(servers: string[], warnings: DNSWarning[]): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return servers;
  const kept = servers.slice(0, MAX_DNS_NAMESERVERS);
  warnings.push({
    reason: "DNSConfigForming",
    message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${kept.join(" ")}`,
  });
  return kept;
}

function fitSearches(searches: string[], warnings: DNSWarning[]): string[] {
  let exceeded = searches.length > MAX_DNS_SEARCH_PATHS;
  let kept = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  const short = kept.filter((search) => search.length <= DNS1123_SUBDOMAIN_MAX_LENGTH);
  exceeded ||= short.length !== kept.length;
  kept = short;
  // drop domains from the end until the search line fits
  while (kept.join(" ").length > MAX_DNS_SEARCH_LIST_CHARS) {
    kept = kept.slice(0, -1);
    exceeded = true;
  }
  if (exceeded) {
    warnings.push({
      reason: "DNSConfigForming",
      message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${kept.join(" ")}`,
    });
  }
  return kept;
}

/** The host's configuration, or, without a resolv.conf, kubelet's "resolve nothing" stand-in. */
function hostBase(settings: DNSSettings, base: DNSConfig): DNSConfig {
  if (settings.hostDNS !== undefined) return base;
  return { ...base, servers: [...base.servers, "127.0.0.1"], searches: ["."] };
}

export function podDNS(pod: PodDNSInput, settings: DNSSettings): PodDNS {
  const warnings: DNSWarning[] = [];
  const host = settings.hostDNS ?? { servers: [], searches: [], options: [] };
  let config: DNSConfig = {
    servers: [...host.servers],
    searches: [...host.searches],
    options: [...host.options],
  };
  switch (podDNSType(pod)) {
    case "none":
      config = { servers: [], searches: [], options: [] };
      break;
    case "cluster":
      if (settings.clusterDNS.length > 0) {
        // the cluster DNS is the only nameserver: it is the one that knows where else to ask
        config = {
          servers: [...settings.clusterDNS],
          searches: clusterSearches(
            config.searches,
            pod.metadata.namespace ?? "default",
            settings.clusterDomain,
          ),
          options: [...DEFAULT_DNS_OPTIONS],
        };
        break;
      }
      warnings.push({
        reason: "MissingClusterDNS",
        message: `pod: "${formatPod(pod)}". ${MISSING_CLUSTER_DNS}`,
      });
      config = hostBase(settings, config);
      break;
    case "host":
      config = hostBase(settings, config);
      break;
  }
  const extra = pod.spec.dnsConfig;
  if (extra) {
    config = {
      servers: unique([...config.servers, ...(extra.nameservers ?? [])]),
      searches: unique([...config.searches, ...(extra.searches ?? [])]),
      options: mergeDNSOptions(config.options, extra.options ?? []),
    };
  }
  return {
    config: {
      servers: fitNameservers(config.servers, warnings),
      searches: fitSearches(config.searches, warnings),
      options: config.options,
    },
    warnings,
  };
}

export interface DNSConfigurerOptions {
  clusterDNS: readonly string[];
  clusterDomain: string;
  /** kubelet's --resolv-conf: the node's resolver file, "" for none. */
  resolvConf: string;
}

/** kubelet's dns.Configurer: reads the node's resolv.conf for every pod, as GetPodDNS does. */
export class PodDNSConfigurer {
  constructor(
    private readonly options: DNSConfigurerOptions,
    private readonly read: (file: string) => Promise<string> = (file) => readFile(file, "utf8"),
  ) {}

  async forPod(pod: PodDNSInput): Promise<PodDNS> {
    const { clusterDNS, clusterDomain, resolvConf } = this.options;
    const hostDNS = resolvConf === "" ? undefined : parseResolvConf(await this.read(resolvConf));
    return podDNS(pod, { clusterDNS, clusterDomain, hostDNS });
  }
}

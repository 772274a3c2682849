import { DEFAULT_PREFIX } from "./names.js";
import { parseCidr } from "./ipv4.js";

// What the host-wide part of the local cluster network looks like. One value describes the real cluster;
// tests build another with their own names and ranges, so both can exist on one machine side by side.

export interface ClusterNetworkConfig {
  /** The one nftables table (family inet) holding the guard rules. */
  tableName: string;
  /** Prefix of every interface of this cluster (node bridges, the service sink): traffic entering the
   * host through one of them may only leave through another. */
  interfacePrefix: string;
  /** Sources that must never reach the outside: pod CIDRs and any range handed to guests. */
  podRanges: string[];
  /** Destinations those sources may reach: the cluster's own ranges and loopback. */
  clusterRanges: string[];
  /** Routed nowhere; the nodes' more specific bridge routes win for the parts in use. */
  blackholeRanges: string[];
  /** Service ranges, routed into an empty bridge rather than a blackhole: a blackhole route makes the
   * host's connect() fail before kube-proxy's output DNAT could rewrite the address. */
  serviceRanges: string[];
}

export const LOCAL_CLUSTER_NETWORK: ClusterNetworkConfig = {
  tableName: "kubevirt_ts",
  interfacePrefix: DEFAULT_PREFIX,
  podRanges: ["10.244.0.0/16"],
  clusterRanges: ["10.243.0.0/16", "10.244.0.0/16", "10.96.0.0/16", "127.0.0.0/8"],
  blackholeRanges: ["10.244.0.0/16"],
  serviceRanges: ["10.96.0.0/16"],
};

/** The bridge that swallows service addresses nobody rewrote. */
export function serviceSinkName(config: ClusterNetworkConfig): string {
  return `${config.interfacePrefix}sink`;
}

/** Throws on malformed ranges or names before anything touches the host. */
export function validateClusterNetworkConfig(config: ClusterNetworkConfig): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(config.tableName)) {
    throw new Error(`nftables table name "${config.tableName}" must be letters, digits and underscores`);
  }
  if (!/^[A-Za-z0-9_.-]{1,10}$/.test(config.interfacePrefix)) {
    throw new Error(`interface prefix "${config.interfacePrefix}" must be 1-10 of [A-Za-z0-9_.-]`);
  }
  if (config.podRanges.length === 0) throw new Error("podRanges must not be empty");
  for (const range of [
    ...config.podRanges,
    ...config.clusterRanges,
    ...config.blackholeRanges,
    ...config.serviceRanges,
  ]) {
    parseCidr(range);
  }
}

import { DEFAULT_PREFIX, MAX_INTERFACE_NAME } from "./names.js";
import { cidrContains, parseCidr } from "./ipv4.js";

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
  /** Host bridges for pods' secondary networks (NetworkAttachmentDefinitions): no host address, one L2
   * segment every node's pods join; each subnet a part of podRanges, so the guard holds for it. */
  secondaryBridges?: SecondaryBridge[];
}

export interface SecondaryBridge {
  /** The host bridge, named with interfacePrefix (e.g. kvts-sec1). */
  name: string;
  /** The addresses a NetworkAttachmentDefinition on this bridge hands out, e.g. 10.245.1.0/24. */
  subnet: string;
}

/** The range every secondary bridge's subnet lies in: guarded as a pod range, routed nowhere. */
export const SECONDARY_RANGE = "10.245.0.0/16";

export const LOCAL_CLUSTER_NETWORK: ClusterNetworkConfig = {
  tableName: "kubevirt_ts",
  interfacePrefix: DEFAULT_PREFIX,
  podRanges: ["10.244.0.0/16", SECONDARY_RANGE],
  clusterRanges: ["10.243.0.0/16", "10.244.0.0/16", SECONDARY_RANGE, "10.96.0.0/16", "127.0.0.0/8"],
  // the secondary range too: the host has no address there, so it must not route it to its uplink
  blackholeRanges: ["10.244.0.0/16", SECONDARY_RANGE],
  serviceRanges: ["10.96.0.0/16"],
  secondaryBridges: [
    { name: `${DEFAULT_PREFIX}sec1`, subnet: "10.245.1.0/24" },
    { name: `${DEFAULT_PREFIX}sec2`, subnet: "10.245.2.0/24" },
  ],
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
  for (const bridge of config.secondaryBridges ?? []) validateSecondaryBridge(config, bridge);
}

function validateSecondaryBridge(config: ClusterNetworkConfig, bridge: SecondaryBridge): void {
  if (!bridge.name.startsWith(config.interfacePrefix) || bridge.name.length > MAX_INTERFACE_NAME) {
    throw new Error(
      `secondary bridge "${bridge.name}" must start with "${config.interfacePrefix}" and have at most ` +
        `${MAX_INTERFACE_NAME} characters`,
    );
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(bridge.name)) {
    throw new Error(`secondary bridge "${bridge.name}" must be letters, digits, "_", "." and "-"`);
  }
  const subnet = parseCidr(bridge.subnet);
  const last = subnet.network + 2 ** (32 - subnet.prefixLength) - 1;
  const guarded = config.podRanges.some((range) => {
    const pod = parseCidr(range);
    return cidrContains(pod, subnet.network) && cidrContains(pod, last);
  });
  if (!guarded) {
    throw new Error(
      `secondary bridge ${bridge.name}'s subnet ${bridge.subnet} lies outside the guarded pod ranges ` +
        `(${config.podRanges.join(", ")})`,
    );
  }
}

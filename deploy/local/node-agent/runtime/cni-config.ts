import { cidrContains, formatCidr, hostRange, parseCidr, parseIpv4 } from "./ipv4.js";

// The node's CNI network configuration (a conflist, CNI spec 1.0.0), as a node's /etc/cni/net.d file would
// hold it: the reference `bridge` plugin attaches each pod's veth to the node bridge, `host-local` hands
// out addresses from the node's pod CIDR, and `loopback` brings `lo` up. The node bridge, its address and
// its forwarding are the node network's (node-network.ts, set up before any pod), so the bridge plugin is
// told neither to address the bridge (isGateway, which would also switch forwarding on machine-wide
// itself) nor to masquerade: pods reach nothing outside the cluster, which the guard enforces.

export const CNI_VERSION = "1.0.0";
/** The plugins the conflist names, built into the CNI bin directory by deploy/local/build-binaries.sh. */
export const CNI_PLUGIN_TYPES = ["bridge", "host-local", "loopback"] as const;
/** The kernel's default, which the hand-made veths had before the plugins made them. */
export const POD_MTU = 1500;

export interface NodeCniConfig {
  /** The network's name; also host-local's folder under dataDir. */
  networkName: string;
  bridge: string;
  /** The node's pod CIDR, e.g. 10.244.1.0/24. */
  podCidr: string;
  /** The node's address on the bridge: every pod's gateway, never handed to a pod. */
  gateway: string;
  /** host-local's reservations (one file per address), under the node's own state directory. */
  ipamDataDir: string;
  /** The cluster's pod ranges, which the egress guard matches: the pod CIDR must lie inside one. */
  guardedRanges: string[];
}

export interface Conflist {
  cniVersion: string;
  name: string;
  plugins: Array<Record<string, unknown> & { type: string }>;
}

export class CniConfigError extends Error {
  override readonly name = "CniConfigError";
}

export function renderNodeConflist(config: NodeCniConfig): Conflist {
  const cidr = parseCidr(config.podCidr);
  const gateway = parseIpv4(config.gateway);
  const { first, last } = hostRange(cidr);
  if (gateway < first || gateway > last) {
    throw new CniConfigError(`gateway ${config.gateway} is not a host address of ${formatCidr(cidr)}`);
  }
  assertGuarded(formatCidr(cidr), config.guardedRanges);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(config.networkName)) {
    throw new CniConfigError(
      `network name "${config.networkName}" must be letters, digits, "_", "." and "-"`,
    );
  }
  return {
    cniVersion: CNI_VERSION,
    name: config.networkName,
    plugins: [
      {
        type: "bridge",
        bridge: config.bridge,
        isGateway: false,
        isDefaultGateway: false,
        ipMasq: false,
        hairpinMode: false,
        mtu: POD_MTU,
        ipam: {
          type: "host-local",
          dataDir: config.ipamDataDir,
          ranges: [[{ subnet: formatCidr(cidr), gateway: config.gateway }]],
          routes: [{ dst: "0.0.0.0/0", gw: config.gateway }],
        },
      },
      { type: "loopback" },
    ],
  };
}

/** Throws unless every address of `podCidr` is a source the guard keeps inside the cluster. */
export function assertGuarded(podCidr: string, guardedRanges: string[]): void {
  const cidr = parseCidr(podCidr);
  const lastAddress = cidr.network + 2 ** (32 - cidr.prefixLength) - 1;
  const covered = guardedRanges.some((range) => {
    const guarded = parseCidr(range);
    return cidrContains(guarded, cidr.network) && cidrContains(guarded, lastAddress);
  });
  if (!covered) {
    throw new CniConfigError(
      `podCidr ${podCidr} lies outside the guarded pod ranges (${guardedRanges.join(", ")}): ` +
        "the egress guard would not hold for the addresses host-local hands out",
    );
  }
}

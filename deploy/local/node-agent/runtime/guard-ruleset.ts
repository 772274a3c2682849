import type { ClusterNetworkConfig } from "./cluster-network-config.js";

// The nftables script for the guard table. It is applied as one transaction that first deletes the old
// table, so re-applying is idempotent and never leaves a half-written rule set.

/** Named counters, read by tests and diagnostics to see which rule stopped a packet. */
export const GUARD_COUNTERS = {
  escaped: "pod_to_outside_drops",
  foreignEgress: "bridge_to_foreign_drops",
  ipv6: "bridge_ipv6_drops",
} as const;

export type GuardCounter = (typeof GUARD_COUNTERS)[keyof typeof GUARD_COUNTERS];

function addressSet(name: string, ranges: string[]): string[] {
  return [
    `\tset ${name} {`,
    "\t\ttype ipv4_addr",
    "\t\tflags interval",
    ...(ranges.length > 0 ? [`\t\telements = { ${ranges.join(", ")} }`] : []),
    "\t}",
  ];
}

export function renderGuardRuleset(config: ClusterNetworkConfig): string {
  const table = `inet ${config.tableName}`;
  const bridges = `"${config.interfacePrefix}*"`;
  const escapeRule = `ip saddr @pod_ranges ip daddr != @cluster_ranges counter name "${GUARD_COUNTERS.escaped}" drop`;
  return [
    // Creating before deleting makes the delete succeed on a fresh machine.
    `table ${table}`,
    `delete table ${table}`,
    `table ${table} {`,
    ...Object.values(GUARD_COUNTERS).map((name) => `\tcounter ${name} {\n\t}`),
    ...addressSet("pod_ranges", config.podRanges),
    ...addressSet("cluster_ranges", config.clusterRanges),
    "\tchain forward {",
    "\t\ttype filter hook forward priority filter; policy accept;",
    `\t\t${escapeRule}`,
    `\t\tiifname ${bridges} oifname != ${bridges} counter name "${GUARD_COUNTERS.foreignEgress}" drop`,
    `\t\tmeta nfproto ipv6 iifname ${bridges} counter name "${GUARD_COUNTERS.ipv6}" drop`,
    "\t}",
    "\tchain output {",
    "\t\ttype filter hook output priority filter; policy accept;",
    `\t\t${escapeRule}`,
    "\t}",
    "}",
    "",
  ].join("\n");
}

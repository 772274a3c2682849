import type { Port, PortRange } from "../../../../api/generated/v1.js";
import { ISTIO_LOOPBACK_ADDRESS, nonProxiedPorts, reservedPorts } from "../../../istio/ports.js";

// The masquerade binding's NAT rules (upstream setup/netpod/masquerade/masquerade.go), rendered as
// data: the guest's traffic leaves with the pod IP (masquerade); traffic arriving on the pod interface
// is DNATed to the guest, for every port or only the listed ones; traffic from the pod's own loopback
// (health probes, sidecars) reaches the guest too, with the gateway as its source.

export const NAT_TABLE = "nat";
export const PREROUTING_CHAIN = "prerouting";
export const INPUT_CHAIN = "input";
export const OUTPUT_CHAIN = "output";
export const POSTROUTING_CHAIN = "postrouting";
export const KUBEVIRT_PREINBOUND_CHAIN = "KUBEVIRT_PREINBOUND";
export const KUBEVIRT_POSTINBOUND_CHAIN = "KUBEVIRT_POSTINBOUND";

/** Libvirt's direct and block migration ports, kept from the guest while migrations use TCP ports. */
export const LEGACY_MIGRATION_PORTS = [49152, 49153];

export interface NatChain {
  name: string;
  /** The hook declaration of a base chain; absent for a regular chain. */
  hook?: string;
}

export const NAT_CHAINS: readonly NatChain[] = [
  { name: PREROUTING_CHAIN, hook: "type nat hook prerouting priority -100;" },
  { name: INPUT_CHAIN, hook: "type nat hook input priority 100;" },
  { name: OUTPUT_CHAIN, hook: "type nat hook output priority -100;" },
  { name: POSTROUTING_CHAIN, hook: "type nat hook postrouting priority 100;" },
  { name: KUBEVIRT_PREINBOUND_CHAIN },
  { name: KUBEVIRT_POSTINBOUND_CHAIN },
];

export interface NatRule {
  chain: string;
  rule: string;
}

export interface MasqueradeNatInput {
  podIfaceName: string;
  bridgeName: string;
  /** The bridge's address: the guest's gateway. */
  gatewayIP: string;
  guestIP: string;
  /** The pod's IPv4 address (istio DNATs traffic sent to it too). */
  podIP: string;
  ports?: readonly Port[] | undefined;
  portRanges?: readonly PortRange[] | undefined;
  istioEnabled?: boolean | undefined;
  /** Keep libvirt's legacy TCP migration ports from the guest (migrations not over unix sockets). */
  legacyMigrationPorts?: boolean | undefined;
  /** Port ranges are honoured only behind their feature gate. */
  portRangesSpecGateEnabled?: boolean | undefined;
}

const LOOPBACK = "127.0.0.1";

export function renderMasqueradeRules(input: MasqueradeNatInput): NatRule[] {
  const rules: NatRule[] = [];
  const add = (chain: string, ...words: Array<string | number>): void => {
    rules.push({ chain, rule: words.join(" ") });
  };
  const { guestIP, gatewayIP } = input;
  const set = (values: ReadonlyArray<string | number>): string => `{ ${values.join(", ")} }`;
  const skipForwardPorts = (ports: readonly number[]): void => {
    for (const chain of [OUTPUT_CHAIN, KUBEVIRT_POSTINBOUND_CHAIN]) {
      add(chain, "tcp dport", set(ports), "ip saddr", LOOPBACK, "counter return");
    }
  };
  const forwardPorts = (protocol: string, ports: readonly number[]): void => {
    if (ports.length > 0)
      add(KUBEVIRT_PREINBOUND_CHAIN, protocol, "dport", set(ports), "counter dnat to", guestIP);
  };

  add(POSTROUTING_CHAIN, "ip saddr", guestIP, "counter masquerade");
  add(PREROUTING_CHAIN, "iifname", input.podIfaceName, "counter jump", KUBEVIRT_PREINBOUND_CHAIN);
  add(POSTROUTING_CHAIN, "oifname", input.bridgeName, "counter jump", KUBEVIRT_POSTINBOUND_CHAIN);
  if (input.legacyMigrationPorts) skipForwardPorts(LEGACY_MIGRATION_PORTS);

  const addressesToDnat = set(input.istioEnabled ? [LOOPBACK, input.podIP] : [LOOPBACK]);
  const addressesToSnat = set(input.istioEnabled ? [LOOPBACK, ISTIO_LOOPBACK_ADDRESS] : [LOOPBACK]);
  const ports = input.ports ?? [];
  const portRanges = input.portRangesSpecGateEnabled ? (input.portRanges ?? []) : [];

  for (const port of ports) {
    const protocol = (port.protocol || "tcp").toLowerCase();
    if (input.istioEnabled)
      forwardPorts(
        "tcp",
        nonProxiedPorts().filter((candidate) => candidate === port.port),
      );
    else forwardPorts(protocol, [port.port]);
    add(
      KUBEVIRT_POSTINBOUND_CHAIN,
      protocol,
      "dport",
      port.port,
      "ip saddr",
      addressesToSnat,
      "counter snat to",
      gatewayIP,
    );
    add(OUTPUT_CHAIN, "ip daddr", addressesToDnat, protocol, "dport", port.port, "counter dnat to", guestIP);
  }

  for (const range of portRanges) {
    const protocol = range.protocol.toLowerCase();
    const span = `${range.start}-${range.end}`;
    if (input.istioEnabled) {
      forwardPorts(
        "tcp",
        nonProxiedPorts().filter((candidate) => range.start <= candidate && candidate <= range.end),
      );
    } else {
      add(KUBEVIRT_PREINBOUND_CHAIN, protocol, "dport", span, "counter dnat to", guestIP);
    }
    add(
      KUBEVIRT_POSTINBOUND_CHAIN,
      protocol,
      "dport",
      span,
      "ip saddr",
      addressesToSnat,
      "counter snat to",
      gatewayIP,
    );
    add(OUTPUT_CHAIN, "ip daddr", addressesToDnat, protocol, "dport", span, "counter dnat to", guestIP);
  }

  if (ports.length === 0 && portRanges.length === 0) {
    if (input.istioEnabled) {
      skipForwardPorts(reservedPorts());
      forwardPorts("tcp", nonProxiedPorts());
    } else {
      add(KUBEVIRT_PREINBOUND_CHAIN, "counter dnat to", guestIP);
    }
    add(KUBEVIRT_POSTINBOUND_CHAIN, "ip saddr", addressesToSnat, "counter snat to", gatewayIP);
    add(OUTPUT_CHAIN, "ip daddr", addressesToDnat, "counter dnat to", guestIP);
  }
  return rules;
}

/**
 * One nft transaction that leaves the nat table's KubeVirt chains holding exactly `rules`: chains are
 * created if missing and flushed, so a rerun converges instead of appending duplicates. Chains of
 * other owners in the same table (iptables-nft uses upper-case PREROUTING...) are left alone.
 */
export function renderNatScript(rules: readonly NatRule[]): string {
  const lines = [`add table ip ${NAT_TABLE}`];
  for (const chain of NAT_CHAINS) {
    lines.push(`add chain ip ${NAT_TABLE} ${chain.name}${chain.hook ? ` { ${chain.hook} }` : ""}`);
  }
  for (const chain of NAT_CHAINS) lines.push(`flush chain ip ${NAT_TABLE} ${chain.name}`);
  for (const { chain, rule } of rules) lines.push(`add rule ip ${NAT_TABLE} ${chain} ${rule}`);
  return lines.join("\n") + "\n";
}

/** Removes the named KubeVirt chains: first all their rules (base chains jump to the regular ones),
 * then the chains. */
export function renderNatRemovalScript(chainNames: readonly string[]): string {
  const lines = chainNames.map((name) => `flush chain ip ${NAT_TABLE} ${name}`);
  for (const name of chainNames) lines.push(`delete chain ip ${NAT_TABLE} ${name}`);
  return lines.join("\n") + "\n";
}

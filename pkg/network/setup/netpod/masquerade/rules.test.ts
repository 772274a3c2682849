import { describe, expect, it } from "vitest";
import type { MasqueradeNatInput } from "./rules.js";
import { renderMasqueradeRules, renderNatRemovalScript, renderNatScript } from "./rules.js";

const base: MasqueradeNatInput = {
  podIfaceName: "eth0",
  bridgeName: "k6t-eth0",
  gatewayIP: "10.0.2.1",
  guestIP: "10.0.2.2",
  podIP: "10.244.1.7",
};

const common = [
  "postrouting: ip saddr 10.0.2.2 counter masquerade",
  "prerouting: iifname eth0 counter jump KUBEVIRT_PREINBOUND",
  "postrouting: oifname k6t-eth0 counter jump KUBEVIRT_POSTINBOUND",
];

const ISTIO_RESERVED = "{ 15000, 15001, 15004, 15006, 15008, 15009, 15020, 15021, 15053, 15090 }";

describe("masquerade NAT rules", () => {
  it.each<[string, Partial<MasqueradeNatInput>, string[]]>([
    [
      "no ports: everything goes to the guest",
      {},
      [
        ...common,
        "KUBEVIRT_PREINBOUND: counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } counter dnat to 10.0.2.2",
      ],
    ],
    [
      "listed ports, protocol defaulting to tcp and lower-cased",
      { ports: [{ port: 80 }, { port: 53, protocol: "UDP" }] },
      [
        ...common,
        "KUBEVIRT_PREINBOUND: tcp dport { 80 } counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: tcp dport 80 ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } tcp dport 80 counter dnat to 10.0.2.2",
        "KUBEVIRT_PREINBOUND: udp dport { 53 } counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: udp dport 53 ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } udp dport 53 counter dnat to 10.0.2.2",
      ],
    ],
    [
      "legacy migration ports stay with the pod",
      { legacyMigrationPorts: true },
      [
        ...common,
        "output: tcp dport { 49152, 49153 } ip saddr 127.0.0.1 counter return",
        "KUBEVIRT_POSTINBOUND: tcp dport { 49152, 49153 } ip saddr 127.0.0.1 counter return",
        "KUBEVIRT_PREINBOUND: counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } counter dnat to 10.0.2.2",
      ],
    ],
    [
      "istio without ports: sidecar ports skipped, only SSH forwarded directly",
      { istioEnabled: true },
      [
        ...common,
        `output: tcp dport ${ISTIO_RESERVED} ip saddr 127.0.0.1 counter return`,
        `KUBEVIRT_POSTINBOUND: tcp dport ${ISTIO_RESERVED} ip saddr 127.0.0.1 counter return`,
        "KUBEVIRT_PREINBOUND: tcp dport { 22 } counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: ip saddr { 127.0.0.1, 127.0.0.6 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1, 10.244.1.7 } counter dnat to 10.0.2.2",
      ],
    ],
    [
      "istio with ports: the proxy forwards them, SSH goes direct",
      { istioEnabled: true, ports: [{ port: 22 }, { port: 80 }] },
      [
        ...common,
        "KUBEVIRT_PREINBOUND: tcp dport { 22 } counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: tcp dport 22 ip saddr { 127.0.0.1, 127.0.0.6 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1, 10.244.1.7 } tcp dport 22 counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: tcp dport 80 ip saddr { 127.0.0.1, 127.0.0.6 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1, 10.244.1.7 } tcp dport 80 counter dnat to 10.0.2.2",
      ],
    ],
    [
      "port ranges behind their feature gate",
      { portRangesSpecGateEnabled: true, portRanges: [{ start: 8000, end: 8080, protocol: "TCP" }] },
      [
        ...common,
        "KUBEVIRT_PREINBOUND: tcp dport 8000-8080 counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: tcp dport 8000-8080 ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } tcp dport 8000-8080 counter dnat to 10.0.2.2",
      ],
    ],
    [
      "port ranges ignored while the gate is off",
      { portRanges: [{ start: 8000, end: 8080, protocol: "TCP" }] },
      [
        ...common,
        "KUBEVIRT_PREINBOUND: counter dnat to 10.0.2.2",
        "KUBEVIRT_POSTINBOUND: ip saddr { 127.0.0.1 } counter snat to 10.0.2.1",
        "output: ip daddr { 127.0.0.1 } counter dnat to 10.0.2.2",
      ],
    ],
  ])("%s", (_, overrides, expected) => {
    const rules = renderMasqueradeRules({ ...base, ...overrides });
    expect(rules.map(({ chain, rule }) => `${chain}: ${rule}`)).toEqual(expected);
  });

  it("renders one transaction that creates, flushes and refills upstream's chains", () => {
    const script = renderNatScript(renderMasqueradeRules(base));
    expect(script.split("\n").slice(0, 14)).toEqual([
      "add table ip nat",
      "add chain ip nat prerouting { type nat hook prerouting priority -100; }",
      "add chain ip nat input { type nat hook input priority 100; }",
      "add chain ip nat output { type nat hook output priority -100; }",
      "add chain ip nat postrouting { type nat hook postrouting priority 100; }",
      "add chain ip nat KUBEVIRT_PREINBOUND",
      "add chain ip nat KUBEVIRT_POSTINBOUND",
      "flush chain ip nat prerouting",
      "flush chain ip nat input",
      "flush chain ip nat output",
      "flush chain ip nat postrouting",
      "flush chain ip nat KUBEVIRT_PREINBOUND",
      "flush chain ip nat KUBEVIRT_POSTINBOUND",
      "add rule ip nat postrouting ip saddr 10.0.2.2 counter masquerade",
    ]);
  });

  it("removes rules before chains", () => {
    expect(renderNatRemovalScript(["prerouting", "KUBEVIRT_PREINBOUND"])).toBe(
      "flush chain ip nat prerouting\nflush chain ip nat KUBEVIRT_PREINBOUND\n" +
        "delete chain ip nat prerouting\ndelete chain ip nat KUBEVIRT_PREINBOUND\n",
    );
  });
});

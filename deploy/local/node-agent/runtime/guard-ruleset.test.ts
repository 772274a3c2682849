import { describe, expect, it } from "vitest";
import { LOCAL_CLUSTER_NETWORK, validateClusterNetworkConfig } from "./cluster-network-config.js";
import { renderGuardRuleset } from "./guard-ruleset.js";

describe("renderGuardRuleset", () => {
  const script = renderGuardRuleset(LOCAL_CLUSTER_NETWORK);
  const lines = script.split("\n").map((line) => line.trim());

  it("replaces the table in one transaction", () => {
    expect(lines.slice(0, 3)).toEqual([
      "table inet kubevirt_ts",
      "delete table inet kubevirt_ts",
      "table inet kubevirt_ts {",
    ]);
  });

  it("lists the sources to police and the destinations they may reach", () => {
    // pods' and the secondary networks' addresses
    expect(lines).toContain("elements = { 10.244.0.0/16, 10.245.0.0/16 }");
    expect(lines).toContain(
      "elements = { 10.243.0.0/16, 10.244.0.0/16, 10.245.0.0/16, 10.96.0.0/16, 127.0.0.0/8 }",
    );
  });

  it.each([
    ["forward", 'ip saddr @pod_ranges ip daddr != @cluster_ranges counter name "pod_to_outside_drops" drop'],
    ["forward", 'iifname "kvts-*" oifname != "kvts-*" counter name "bridge_to_foreign_drops" drop'],
    ["forward", 'meta nfproto ipv6 iifname "kvts-*" counter name "bridge_ipv6_drops" drop'],
    ["output", 'ip saddr @pod_ranges ip daddr != @cluster_ranges counter name "pod_to_outside_drops" drop'],
  ])("drops in the %s hook: %s", (chain, rule) => {
    const start = lines.indexOf(`chain ${chain} {`);
    const end = lines.indexOf("}", start);
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start, end)).toContain(rule);
  });

  it("hooks both chains as filters that accept everything else", () => {
    expect(lines.filter((line) => line.endsWith("priority filter; policy accept;"))).toHaveLength(2);
  });
});

describe("validateClusterNetworkConfig", () => {
  it("accepts the local cluster's configuration", () => {
    expect(() => validateClusterNetworkConfig(LOCAL_CLUSTER_NETWORK)).not.toThrow();
  });

  it.each([
    [{ tableName: "kubevirt-ts" }, /table name/],
    [{ interfacePrefix: "a very long prefix" }, /interface prefix/],
    [{ podRanges: [] }, /podRanges/],
    [{ clusterRanges: ["10.0.0.0"] }, /invalid CIDR/],
    [{ secondaryBridges: [{ name: "br-sec1", subnet: "10.245.1.0/24" }] }, /must start with "kvts-"/],
    [{ secondaryBridges: [{ name: "kvts-secondary-1", subnet: "10.245.1.0/24" }] }, /at most 15/],
    [
      { secondaryBridges: [{ name: "kvts-sec1", subnet: "192.168.1.0/24" }] },
      /outside the guarded pod ranges/,
    ],
  ])("rejects %j", (override, message) => {
    expect(() => validateClusterNetworkConfig({ ...LOCAL_CLUSTER_NETWORK, ...override })).toThrow(message);
  });
});

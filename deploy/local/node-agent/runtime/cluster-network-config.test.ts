import { describe, expect, it } from "vitest";
import { parseCidr } from "./ipv4.js";
import { LOCAL_CLUSTER_NETWORK, SECONDARY_RANGE } from "./cluster-network-config.js";

describe("the local cluster's secondary bridges", () => {
  const bridges = LOCAL_CLUSTER_NETWORK.secondaryBridges ?? [];

  it("are kvts-sec1 and kvts-sec2 on their own /24s of 10.245.0.0/16", () => {
    expect(bridges).toEqual([
      { name: "kvts-sec1", subnet: "10.245.1.0/24" },
      { name: "kvts-sec2", subnet: "10.245.2.0/24" },
    ]);
  });

  it("lie in a range the guard polices as a source, lets pods reach, and the host routes nowhere", () => {
    expect(LOCAL_CLUSTER_NETWORK.podRanges).toContain(SECONDARY_RANGE);
    expect(LOCAL_CLUSTER_NETWORK.clusterRanges).toContain(SECONDARY_RANGE);
    expect(LOCAL_CLUSTER_NETWORK.blackholeRanges).toContain(SECONDARY_RANGE);
  });

  it("do not overlap the node pod CIDRs' range", () => {
    const pods = parseCidr("10.244.0.0/16");
    for (const bridge of bridges) {
      const subnet = parseCidr(bridge.subnet);
      expect(subnet.network >>> 16).not.toBe(pods.network >>> 16);
    }
  });
});

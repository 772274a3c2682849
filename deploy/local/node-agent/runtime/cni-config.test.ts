import { describe, expect, it } from "vitest";
import { CNI_PLUGIN_TYPES, assertGuarded, renderNodeConflist } from "./cni-config.js";
import type { NodeCniConfig } from "./cni-config.js";

const NODE01: NodeCniConfig = {
  networkName: "kvts-node01",
  bridge: "kvts-node01",
  podCidr: "10.244.1.0/24",
  gateway: "10.244.1.1",
  ipamDataDir: "/state/node01/runtime/cni/networks",
  guardedRanges: ["10.244.0.0/16"],
};

describe("the node's conflist", () => {
  it("attaches pods to the node bridge with host-local addresses from the node's pod CIDR", () => {
    expect(renderNodeConflist(NODE01)).toEqual({
      cniVersion: "1.0.0",
      name: "kvts-node01",
      plugins: [
        {
          type: "bridge",
          bridge: "kvts-node01",
          isGateway: false,
          isDefaultGateway: false,
          ipMasq: false,
          hairpinMode: false,
          mtu: 1500,
          ipam: {
            type: "host-local",
            dataDir: "/state/node01/runtime/cni/networks",
            ranges: [[{ subnet: "10.244.1.0/24", gateway: "10.244.1.1" }]],
            routes: [{ dst: "0.0.0.0/0", gw: "10.244.1.1" }],
          },
        },
        { type: "loopback" },
      ],
    });
  });

  it("names only plugins that build-binaries.sh builds", () => {
    const types = renderNodeConflist(NODE01).plugins.flatMap((plugin) => [
      plugin.type,
      ...(plugin["ipam"] ? [(plugin["ipam"] as { type: string }).type] : []),
    ]);
    for (const type of types) expect(CNI_PLUGIN_TYPES).toContain(type);
  });

  it("normalises the pod CIDR to its network address", () => {
    const list = renderNodeConflist({ ...NODE01, podCidr: "10.244.1.7/24" });
    const ipam = list.plugins[0]?.["ipam"] as { ranges: Array<Array<{ subnet: string }>> };
    expect(ipam.ranges[0]?.[0]?.subnet).toBe("10.244.1.0/24");
  });

  it("refuses a pod CIDR the egress guard does not cover, naming both", () => {
    expect(() => renderNodeConflist({ ...NODE01, podCidr: "10.245.1.0/24", gateway: "10.245.1.1" })).toThrow(
      "podCidr 10.245.1.0/24 lies outside the guarded pod ranges (10.244.0.0/16)",
    );
    // half inside is still outside
    expect(() => assertGuarded("10.244.0.0/15", ["10.244.0.0/16"])).toThrow(/outside the guarded/);
    expect(() => assertGuarded("10.244.200.0/24", ["10.244.200.0/23"])).not.toThrow();
  });

  it("refuses a gateway outside the pod CIDR and a network name CNI would reject", () => {
    expect(() => renderNodeConflist({ ...NODE01, gateway: "10.244.2.1" })).toThrow(
      "gateway 10.244.2.1 is not a host address of 10.244.1.0/24",
    );
    expect(() => renderNodeConflist({ ...NODE01, gateway: "10.244.1.255" })).toThrow(/not a host address/);
    expect(() => renderNodeConflist({ ...NODE01, networkName: "kvts/node01" })).toThrow(
      'network name "kvts/node01"',
    );
  });
});

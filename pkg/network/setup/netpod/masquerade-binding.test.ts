import { describe, expect, it } from "vitest";
import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import { masqueradeBindingSpec, masqueradeDhcpConfig } from "./masquerade-binding.js";

const pod: DiscoveredPodInterface = {
  name: "eth0",
  index: 2,
  macAddress: "0a:58:0a:f4:01:05",
  mtu: 1450,
  ipv4: [{ ip: "10.244.1.5", prefixLength: 24 }],
  ipv6: [],
  routes: [],
};
const names = { podIfaceName: "eth0", tapName: "tap0", vmiIfaceIndex: 0, networkName: "default" };
const tap = { queues: 4, uid: 107, gid: 107 };

describe("masquerade binding spec", () => {
  it("composes the gateway bridge with the fixed MAC and the tap, both at the pod's MTU", () => {
    expect(masqueradeBindingSpec(names, pod, { name: "default", pod: {} }, tap)).toEqual([
      {
        name: "k6t-eth0",
        typeName: "bridge",
        state: "up",
        macAddress: "02:00:00:00:00:00",
        mtu: 1450,
        ipv4: { enabled: true, address: [{ ip: "10.0.2.1", prefixLength: 24 }] },
        ipv6: { enabled: false },
        linuxStack: { ip4RouteLocalNet: true },
        networkName: "default",
      },
      {
        name: "tap0",
        typeName: "tap",
        state: "up",
        mtu: 1450,
        controller: "k6t-eth0",
        tap,
        networkName: "default",
      },
    ]);
  });

  it("uses the network's vmNetworkCIDR", () => {
    const [bridge] = masqueradeBindingSpec(
      names,
      pod,
      { name: "default", pod: { vmNetworkCIDR: "10.11.12.0/28" } },
      tap,
    );
    expect(bridge?.ipv4).toEqual({ enabled: true, address: [{ ip: "10.11.12.1", prefixLength: 28 }] });
    const config = masqueradeDhcpConfig(
      names,
      pod,
      { name: "default" },
      { name: "default", pod: { vmNetworkCIDR: "10.11.12.0/28" } },
    );
    expect(config).toMatchObject({
      ip: "10.11.12.2/28",
      gateway: "10.11.12.1",
      advertisingIPAddr: "10.11.12.1",
    });
  });

  it("offers the guest the second address, the gateway and the spec's MAC", () => {
    const vmiIface = { name: "default", masquerade: {}, macAddress: "DE:AD:00:00:BE:AF" };
    expect(masqueradeDhcpConfig(names, pod, vmiIface, { name: "default", pod: {} })).toEqual({
      name: "eth0",
      ip: "10.0.2.2/24",
      mac: "de:ad:00:00:be:af",
      advertisingIPAddr: "10.0.2.1",
      gateway: "10.0.2.1",
      mtu: 1450,
      ipamDisabled: false,
      tapName: "tap0",
      bridgeName: "k6t-eth0",
    });
  });

  it("configures no IPv4 and no DHCP when the pod has no IPv4", () => {
    const [bridge] = masqueradeBindingSpec(names, { ...pod, ipv4: [] }, { name: "default", pod: {} }, tap);
    expect(bridge?.ipv4).toEqual({ enabled: false });
    expect(
      masqueradeDhcpConfig(names, { ...pod, ipv4: [] }, { name: "default" }, { name: "default", pod: {} }),
    ).toEqual({
      ipamDisabled: true,
    });
  });
});

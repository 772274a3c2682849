import { describe, expect, it } from "vitest";
import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import { bridgeBindingDhcpConfig, bridgeBindingSpec, restoredPodLinkSpec } from "./bridge.js";

const pod: DiscoveredPodInterface = {
  name: "eth0",
  index: 7,
  macAddress: "0a:58:0a:f4:01:05",
  mtu: 1450,
  ipv4: [{ ip: "10.244.1.5", prefixLength: 24 }],
  ipv6: [{ ip: "fe80::858:aff:fef4:105", prefixLength: 64 }],
  routes: [
    { destination: "0.0.0.0/0", nextHopInterface: "eth0", nextHopAddress: "10.244.1.1" },
    { destination: "10.244.0.0/16", nextHopInterface: "eth0", nextHopAddress: "10.244.1.1" },
    { destination: "10.244.1.0/24", nextHopInterface: "eth0", protocol: "kernel" },
  ],
};
const names = { podIfaceName: "eth0", tapName: "tap0", vmiIfaceIndex: 0, networkName: "default" };
const tap = { queues: 0, uid: 107, gid: 107 };

describe("bridge binding spec", () => {
  it("composes bridge, renamed pod link, tap and placeholder, as upstream", () => {
    expect(bridgeBindingSpec(names, pod, tap)).toEqual([
      {
        name: "k6t-eth0",
        typeName: "bridge",
        state: "up",
        networkName: "default",
        ipv4: { enabled: true, address: [{ ip: "169.254.75.10", prefixLength: 32 }] },
      },
      {
        index: 7,
        name: "eth0-nic",
        state: "up",
        copyMacFrom: "k6t-eth0",
        controller: "k6t-eth0",
        ipv4: { enabled: false },
        ipv6: { enabled: false },
        linuxStack: { portLearning: false },
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
      {
        name: "eth0",
        typeName: "dummy",
        macAddress: "0a:58:0a:f4:01:05",
        mtu: 1450,
        ipv4: { enabled: true, address: pod.ipv4 },
        ipv6: { enabled: false, address: [] },
        networkName: "default",
      },
    ]);
  });

  it("gives the bridge no address when the pod has no IPv4", () => {
    const [bridge] = bridgeBindingSpec(names, { ...pod, ipv4: [] }, tap);
    expect(bridge?.ipv4).toBeUndefined();
  });

  it("hands the guest the pod IP, MAC, gateway and the non-local routes", () => {
    expect(bridgeBindingDhcpConfig(names, pod, { name: "default", bridge: {} }, undefined)).toEqual({
      name: "eth0",
      ip: "10.244.1.5/24",
      mac: "0a:58:0a:f4:01:05",
      advertisingIPAddr: "169.254.75.10",
      gateway: "10.244.1.1",
      routes: [
        { destination: "0.0.0.0/0", gateway: "10.244.1.1" },
        { destination: "10.244.0.0/16", gateway: "10.244.1.1" },
      ],
      mtu: 1450,
      ipamDisabled: false,
      tapName: "tap0",
      bridgeName: "k6t-eth0",
    });
  });

  it.each([
    [
      "the spec's MAC first",
      { name: "default", bridge: {}, macAddress: "DE-AD-00-00-BE-AF" },
      "02:00:00:00:00:07",
      "de:ad:00:00:be:af",
    ],
    [
      "then the MAC in the VMI status",
      { name: "default", bridge: {} },
      "02:00:00:00:00:07",
      "02:00:00:00:00:07",
    ],
  ])("prefers %s", (_, vmiIface, statusMAC, expected) => {
    const config = bridgeBindingDhcpConfig(names, pod, vmiIface, { name: "default", mac: statusMAC });
    expect(config.mac).toBe(expected);
  });

  it("disables DHCP without an IPv4 on the pod interface", () => {
    expect(
      bridgeBindingDhcpConfig(names, { ...pod, ipv4: [] }, { name: "default", bridge: {} }, undefined),
    ).toEqual({
      ipamDisabled: true,
    });
  });

  it("refuses a pod interface without routes", () => {
    expect(() =>
      bridgeBindingDhcpConfig(names, { ...pod, routes: [] }, { name: "default", bridge: {} }, undefined),
    ).toThrow("no gateway address found in routes for eth0");
  });

  it("restores the pod link out of the bridge with its name, MAC and addresses", () => {
    expect(restoredPodLinkSpec(pod)).toEqual({
      index: 7,
      name: "eth0",
      state: "up",
      macAddress: "0a:58:0a:f4:01:05",
      mtu: 1450,
      controller: "",
      ipv4: { enabled: true, address: pod.ipv4 },
      ipv6: { enabled: false, address: [] },
    });
  });
});

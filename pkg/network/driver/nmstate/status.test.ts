import { describe, expect, it } from "vitest";
import { interfaceFromLink, routeFromIp } from "./status.js";

// Shapes as iproute2 6.1 prints them with `ip -j -d addr show` / `ip -j -4 route show`.

describe("reading iproute2's JSON", () => {
  it("reads a bridged tap with its owner and learning flag", () => {
    const link = {
      ifindex: 4,
      ifname: "tap0",
      flags: ["BROADCAST", "MULTICAST", "UP"],
      mtu: 1400,
      address: "aa:1d:5c:fc:5b:6b",
      master: "k6t-eth0",
      linkinfo: {
        info_kind: "tun",
        info_data: { type: "tap", pi: false, vnet_hdr: true, multi_queue: false, user: 107, group: 107 },
        info_slave_kind: "bridge",
        info_slave_data: { learning: true },
      },
      addr_info: [{ family: "inet6", local: "fe80::1", prefixlen: 64, scope: "link" }],
    };
    expect(interfaceFromLink(link)).toEqual({
      name: "tap0",
      index: 4,
      typeName: "tap",
      state: "up",
      mtu: 1400,
      macAddress: "aa:1d:5c:fc:5b:6b",
      controller: "k6t-eth0",
      tap: { queues: 0, uid: 107, gid: 107 },
      linuxStack: { portLearning: true },
      ipv4: { enabled: false },
      ipv6: { enabled: true, address: [{ ip: "fe80::1", prefixLength: 64 }] },
    });
  });

  it("reads a down veth with an IPv4 address", () => {
    const link = {
      ifindex: 2,
      ifname: "eth0",
      flags: ["BROADCAST", "MULTICAST"],
      mtu: 1500,
      address: "02:42:0a:f4:fa:02",
      linkinfo: { info_kind: "veth" },
      addr_info: [{ family: "inet", local: "10.244.250.2", prefixlen: 24 }],
    };
    expect(interfaceFromLink(link)).toMatchObject({
      typeName: "veth",
      state: "down",
      ipv4: { enabled: true, address: [{ ip: "10.244.250.2", prefixLength: 24 }] },
    });
  });

  it.each([
    [
      { dst: "default", gateway: "10.244.250.1", dev: "eth0" },
      [{ destination: "0.0.0.0/0", nextHopInterface: "eth0", nextHopAddress: "10.244.250.1" }],
    ],
    [
      { dst: "10.244.250.0/24", dev: "eth0", protocol: "kernel" },
      [{ destination: "10.244.250.0/24", nextHopInterface: "eth0", protocol: "kernel" }],
    ],
    [
      { dst: "10.1.2.3", gateway: "10.244.250.1", dev: "eth0" },
      [{ destination: "10.1.2.3/32", nextHopInterface: "eth0", nextHopAddress: "10.244.250.1" }],
    ],
    [{ type: "blackhole", dst: "10.9.0.0/16" }, []],
  ])("reads the route %j", (route, expected) => {
    expect(routeFromIp(route)).toEqual(expected);
  });
});

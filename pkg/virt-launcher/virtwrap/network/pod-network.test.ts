import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { silentLogger } from "../../../controller/log.js";
import type { DhcpServerConfig } from "../../../network/dhcp/server-config.js";
import type { DomainSpec } from "../api/schema.js";
import { interfaceCacheFile, interfacePlumbing, readPodInterfaces, startDhcpServers } from "./pod-network.js";
import { podAndTwoBridgeNetworks } from "../../../network/testing/multus-fixture.js";

function vmiWithPodNetwork(binding: "masquerade" | "bridge"): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default", uid: "uid-1" },
    spec: {
      domain: { devices: { interfaces: [{ name: "default", [binding]: {} }] } },
      networks: [{ name: "default", pod: {} }],
      subdomain: "sub",
    },
  };
}

const cached = {
  name: "eth0",
  ip: "10.244.1.5/24",
  mac: "0a:58:0a:f4:01:05",
  advertisingIPAddr: "169.254.75.10",
  gateway: "10.244.1.1",
  mtu: 1450,
  ipamDisabled: false,
  tapName: "tap0",
  bridgeName: "k6t-eth0",
};

describe("the launcher's side of the pod network", () => {
  it("reads what virt-handler cached for the pod interface", async () => {
    const privateDir = mkdtempSync(join(tmpdir(), "kvts-net-"));
    await interfaceCacheFile(privateDir, "eth0").write(cached);
    const interfaces = await readPodInterfaces(vmiWithPodNetwork("bridge"), privateDir);
    expect(interfaces.map(({ podInterfaceName, cached: config }) => [podInterfaceName, config?.ip])).toEqual([
      ["eth0", "10.244.1.5/24"],
    ]);
    expect([...interfacePlumbing(interfaces)]).toEqual([
      ["default", { tapDevice: "tap0", mac: cached.mac, mtu: 1450 }],
    ]);
  });

  it("falls back to upstream's tap name when nothing is cached yet", async () => {
    const interfaces = await readPodInterfaces(
      vmiWithPodNetwork("masquerade"),
      mkdtempSync(join(tmpdir(), "kvts-net-")),
    );
    expect([...interfacePlumbing(interfaces)]).toEqual([["default", { tapDevice: "tap0" }]]);
  });

  it("starts one DHCP server per interface, with the pod's DNS, once", async () => {
    const privateDir = mkdtempSync(join(tmpdir(), "kvts-net-"));
    const resolvConfPath = join(privateDir, "resolv.conf");
    writeFileSync(
      resolvConfPath,
      "nameserver 10.96.0.10\nsearch default.svc.cluster.local svc.cluster.local\n",
    );
    const vmi = vmiWithPodNetwork("masquerade");
    await interfaceCacheFile(privateDir, "eth0").write({
      ...cached,
      mac: undefined,
      ip: "10.0.2.2/24",
      gateway: "10.0.2.1",
    });
    const spec = {
      devices: {
        interfaces: [
          {
            type: "ethernet",
            mac: { mac: "02:11:22:33:44:55" },
            alias: { name: "default", userDefined: true },
          },
        ],
      },
    } as unknown as DomainSpec;
    const started: DhcpServerConfig[] = [];
    const starter = {
      privateDir,
      log: silentLogger,
      resolvConfPath,
      start: (config: DhcpServerConfig) => {
        started.push(config);
        return Promise.resolve({ close: () => Promise.resolve() });
      },
    };
    const interfaces = await readPodInterfaces(vmi, privateDir);
    expect(await startDhcpServers(vmi, spec, interfaces, starter)).toHaveLength(1);
    expect(await startDhcpServers(vmi, spec, interfaces, starter)).toHaveLength(0);
    expect(started).toEqual([
      expect.objectContaining({
        clientMAC: "02:11:22:33:44:55",
        clientIP: "10.0.2.2",
        serverIP: "169.254.75.10",
        routerIP: "10.0.2.1",
        dnsServers: ["10.96.0.10"],
        mtu: 1450,
        hostname: "testvmi",
      }),
    ]);
    expect(existsSync(join(privateDir, "dhcp_started-eth0"))).toBe(true);
  });

  describe("a VMI on the pod network and two secondary bridge networks", () => {
    const layout = podAndTwoBridgeNetworks();
    const vmi: VirtualMachineInstance = {
      metadata: { name: "testvmi", namespace: "default", uid: "uid-1" },
      spec: {
        domain: { devices: { interfaces: layout.interfaces } },
        networks: layout.networks,
      },
    };
    const secondary = (podIface: string, tap: string, bridge: string) => ({
      name: podIface,
      ip: "192.168.10.2/24",
      mac: "02:42:c0:a8:0a:02",
      advertisingIPAddr: "169.254.75.11",
      mtu: 1300,
      ipamDisabled: false,
      tapName: tap,
      bridgeName: bridge,
    });
    const starter = (privateDir: string, started: DhcpServerConfig[]) => ({
      privateDir,
      log: silentLogger,
      resolvConfPath: join(privateDir, "none"),
      start: (config: DhcpServerConfig) => {
        started.push(config);
        return Promise.resolve({ close: () => Promise.resolve() });
      },
    });

    it("plugs each into its tap and serves DHCP on each interface with a cached IP", async () => {
      const privateDir = mkdtempSync(join(tmpdir(), "kvts-net-"));
      await interfaceCacheFile(privateDir, "eth0").write({
        ...cached,
        ip: "10.0.2.2/24",
        gateway: "10.0.2.1",
      });
      await interfaceCacheFile(privateDir, "pod17274e5ba35").write(
        secondary("pod17274e5ba35", "tap17274e5ba35", "k6t-17274e5ba35"),
      );
      await interfaceCacheFile(privateDir, "pode937a4d0f8b").write({ ipamDisabled: true });
      const interfaces = await readPodInterfaces(vmi, privateDir);
      expect(interfaces.map(({ podInterfaceName }) => podInterfaceName)).toEqual([
        "eth0",
        "pod17274e5ba35",
        "pode937a4d0f8b",
      ]);
      expect([...interfacePlumbing(interfaces)].map(([name, { tapDevice }]) => [name, tapDevice])).toEqual([
        ["default", "tap0"],
        ["attachnet1", "tap17274e5ba35"],
        ["attachnet2", "tape937a4d0f8b"],
      ]);
      const started: DhcpServerConfig[] = [];
      const spec = { devices: { interfaces: [] } } as unknown as DomainSpec;
      expect(await startDhcpServers(vmi, spec, interfaces, starter(privateDir, started))).toHaveLength(2);
      expect(started.map(({ clientIP, serverIP, mtu }) => [clientIP, serverIP, mtu])).toEqual([
        ["10.0.2.2", "169.254.75.10", 1450],
        ["192.168.10.2", "169.254.75.11", 1300],
      ]);
      expect(existsSync(join(privateDir, "dhcp_started-pod17274e5ba35"))).toBe(true);
    });

    it("finds the ordinal pod interfaces (net1, net2) of a pod made by an older release", async () => {
      const privateDir = mkdtempSync(join(tmpdir(), "kvts-net-"));
      await interfaceCacheFile(privateDir, "net1").write(secondary("net1", "tap1", "k6t-net1"));
      await interfaceCacheFile(privateDir, "net2").write({ ipamDisabled: true });
      const interfaces = await readPodInterfaces(vmi, privateDir);
      expect(interfaces.map(({ podInterfaceName }) => podInterfaceName)).toEqual(["eth0", "net1", "net2"]);
      expect([...interfacePlumbing(interfaces)].map(([, { tapDevice }]) => tapDevice)).toEqual([
        "tap0",
        "tap1",
        "tap2",
      ]);
    });
  });
});

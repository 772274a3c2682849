import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DHCPConfig } from "../cache/dhcpconfig.js";
import { ensureDhcpServerStarted, generateDhcpServerConfig } from "./configurator.js";

const RESOLV_CONF = "search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\n";

const bridgeCache: DHCPConfig = {
  name: "eth0",
  ip: "10.244.1.5/24",
  mac: "0a:58:0a:f4:01:05",
  advertisingIPAddr: "169.254.75.10",
  gateway: "10.244.1.1",
  routes: [{ destination: "0.0.0.0/0", gateway: "10.244.1.1" }],
  mtu: 1450,
  ipamDisabled: false,
  tapName: "tap0",
  bridgeName: "k6t-eth0",
};

describe("the launcher's DHCP server configuration", () => {
  it("combines the cached interface config with the pod's DNS settings", () => {
    expect(
      generateDhcpServerConfig(bridgeCache, { resolvConf: RESOLV_CONF, hostname: "vmi", subdomain: "sub" }),
    ).toEqual({
      serverInterface: "k6t-eth0",
      serverIP: "169.254.75.10",
      clientMAC: "0a:58:0a:f4:01:05",
      clientIP: "10.244.1.5",
      clientPrefixLength: 24,
      routerIP: "10.244.1.1",
      dnsServers: ["10.96.0.10"],
      searchDomains: [
        "sub.ns1.svc.cluster.local",
        "ns1.svc.cluster.local",
        "svc.cluster.local",
        "cluster.local",
      ],
      routes: [{ destination: "0.0.0.0/0", gateway: "10.244.1.1" }],
      mtu: 1450,
      hostname: "vmi",
    });
  });

  it("takes the domain's MAC when the handler could not know it", () => {
    const { mac: _, ...withoutMac } = bridgeCache;
    const config = generateDhcpServerConfig(withoutMac, {
      resolvConf: RESOLV_CONF,
      hostname: "vmi",
      domainMAC: "02:00:00:AA:BB:CC",
    });
    expect(config?.clientMAC).toBe("02:00:00:aa:bb:cc");
    expect(() => generateDhcpServerConfig(withoutMac, { resolvConf: RESOLV_CONF, hostname: "vmi" })).toThrow(
      "no MAC address known for the guest interface on eth0",
    );
  });

  it("has nothing to serve when IPAM is disabled", () => {
    expect(
      generateDhcpServerConfig({ ipamDisabled: true }, { resolvConf: RESOLV_CONF, hostname: "vmi" }),
    ).toBeUndefined();
  });
});

describe("starting the DHCP server once", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "kvts-dhcp-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("starts once per pod interface and leaves a marker", async () => {
    const config = generateDhcpServerConfig(bridgeCache, { resolvConf: RESOLV_CONF, hostname: "vmi" });
    const start = vi.fn(async () => undefined);
    await ensureDhcpServerStarted("eth0", config, start, dir);
    await ensureDhcpServerStarted("eth0", config, start, dir);
    expect(start).toHaveBeenCalledTimes(1);
    expect(await readdir(dir)).toEqual(["dhcp_started-eth0"]);
  });

  it("reports a failed start and leaves no marker", async () => {
    const config = generateDhcpServerConfig(bridgeCache, { resolvConf: RESOLV_CONF, hostname: "vmi" });
    const failing = async (): Promise<void> => {
      throw new Error("EADDRINUSE");
    };
    await expect(ensureDhcpServerStarted("eth0", config, failing, dir)).rejects.toThrow(
      "failed to start DHCP server for interface eth0",
    );
    expect(await readdir(dir)).toEqual([]);
  });
});

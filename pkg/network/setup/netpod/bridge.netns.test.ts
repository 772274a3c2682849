import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interface as VMIInterface, Network } from "../../../api/generated/v1.js";
import { dhcpInterfaceCache } from "../../cache/dhcpconfig.js";
import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import { generateDhcpServerConfig } from "../../dhcp/configurator.js";
import type { DhcpServerProcess } from "../../dhcp/run-in-netns.js";
import { runDhcpServerInNetns } from "../../dhcp/run-in-netns.js";
import { readSysctl } from "../../driver/procsys.js";
import { netnsTestsUnavailableReason } from "../../testing/netns-lab.js";
import type { PodFixture } from "../../testing/pod-fixture.js";
import {
  HOST_IP,
  LAUNCHER_UID,
  POD_IP,
  POD_MAC,
  POD_MTU,
  RESOLV_CONF,
  RecordingExec,
  createPodFixture,
  ipv4Addresses,
  linkDetails,
  snapshotNetns,
} from "../../testing/pod-fixture.js";
import { startTcpServer, tcpRequest } from "../../testing/tcp-probe.js";
import { discoverPodInterface } from "./discover.js";
import { NetPod } from "./netpod.js";
import { runnable } from "../../../testutils/requirement.js";

// The bridge binding in real namespaces: the pod interface moves into the bridge, the guest gets the
// pod's MAC and IP by DHCP and answers at the pod IP; idempotence and teardown.

const canRun = runnable("the bridge binding network namespace tests", await netnsTestsUnavailableReason());

const network: Network = { name: "default", pod: {} };
const bridgeIface: VMIInterface = { name: "default", bridge: {} };

describe.runIf(canRun)("bridge binding in a pod network namespace", () => {
  let fixture: PodFixture;
  let before: unknown;
  let dhcpServer: DhcpServerProcess | undefined;

  let discovered: DiscoveredPodInterface;

  beforeAll(async () => {
    fixture = await createPodFixture();
    before = await snapshotNetns(fixture.podExec);
    discovered = await discoverPodInterface(fixture.pod.path, "eth0");
    await fixture.netPod([bridgeIface], [network]).setup();
  }, 60_000);

  afterAll(async () => {
    await dhcpServer?.stop();
    // Throws when a namespace or link of the lab is left behind.
    await fixture?.cleanup();
  });

  it("discovers the pod interface as CNI left it", () => {
    expect(discovered).toEqual({
      name: "eth0",
      index: expect.any(Number),
      macAddress: POD_MAC,
      mtu: POD_MTU,
      ipv4: [{ ip: POD_IP, prefixLength: 24 }],
      ipv6: expect.any(Array),
      routes: [
        { destination: "0.0.0.0/0", nextHopInterface: "eth0", nextHopAddress: HOST_IP },
        { destination: "10.244.250.0/24", nextHopInterface: "eth0", protocol: "kernel" },
      ],
    });
  });

  it("moves the pod interface, renamed eth0-nic and without addresses, into bridge k6t-eth0", async () => {
    const podLink = await linkDetails(fixture.podExec, "eth0-nic");
    expect(podLink).toMatchObject({ master: "k6t-eth0", mtu: POD_MTU, linkinfo: { info_kind: "veth" } });
    expect(podLink["addr_info"]).not.toContainEqual(expect.objectContaining({ family: "inet" }));
    expect(podLink).toMatchObject({ linkinfo: { info_slave_data: { learning: false } } });
    expect(podLink["address"]).not.toBe(POD_MAC);
  });

  it("gives the bridge the link-local 169.254.75.10/32 to serve DHCP from", async () => {
    const bridge = await linkDetails(fixture.podExec, "k6t-eth0");
    expect(ipv4Addresses(bridge)).toEqual([{ family: "inet", local: "169.254.75.10", prefixlen: 32 }]);
    expect(await readSysctl(fixture.podExec, "net/ipv4/conf/all/arp_ignore")).toBe(1);
  });

  it("keeps the pod's MAC and IP on a down placeholder named eth0", async () => {
    const placeholder = await linkDetails(fixture.podExec, "eth0");
    expect(placeholder).toMatchObject({ address: POD_MAC, mtu: POD_MTU });
    expect(placeholder["flags"]).not.toContain("UP");
    expect(placeholder["addr_info"]).toContainEqual(
      expect.objectContaining({ family: "inet", local: POD_IP, prefixlen: 24 }),
    );
  });

  it("creates tap0 on the bridge, owned by the launcher's user", async () => {
    const tap = await linkDetails(fixture.podExec, "tap0");
    expect(tap).toMatchObject({
      master: "k6t-eth0",
      mtu: POD_MTU,
      linkinfo: { info_data: { type: "tap", user: LAUNCHER_UID, group: LAUNCHER_UID, multi_queue: false } },
    });
  });

  it("caches the pod IP, MAC, gateway and routes for the launcher's DHCP server", async () => {
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read()).toEqual({
      name: "eth0",
      ip: `${POD_IP}/24`,
      mac: POD_MAC,
      advertisingIPAddr: "169.254.75.10",
      gateway: HOST_IP,
      routes: [{ destination: "0.0.0.0/0", gateway: HOST_IP }],
      mtu: POD_MTU,
      ipamDisabled: false,
      tapName: "tap0",
      bridgeName: "k6t-eth0",
    });
  });

  it("changes nothing when set up a second time", async () => {
    const snapshot = await snapshotNetns(fixture.podExec);
    const recording = new RecordingExec(fixture.podExec);
    await fixture.netPod([bridgeIface], [network], recording).setup();
    expect(recording.changes).toEqual([]);
    expect(await snapshotNetns(fixture.podExec)).toEqual(snapshot);
  }, 30_000);

  it("refuses to prepare again a pod interface whose cache is gone", async () => {
    const forgetful = new NetPod({
      ...fixture.netPodConfig([bridgeIface], [network]),
      privateDir: `${fixture.dir}/empty`,
    });
    await expect(forgetful.setup()).rejects.toThrow(
      "pod link (eth0) was already prepared (eth0-nic exists) but its cache is missing",
    );
  });

  it("offers the guest the pod's IP, gateway, routes and MTU by DHCP", async () => {
    await fixture.attachGuest("k6t-eth0", POD_MAC);
    const cached = await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read();
    const config = generateDhcpServerConfig(cached!, { resolvConf: RESOLV_CONF, hostname: "testvmi" });
    dhcpServer = await runDhcpServerInNetns(fixture.pod.path, config!);
    expect(await fixture.udhcpc()).toMatchObject({
      ip: POD_IP,
      mask: "24",
      router: HOST_IP,
      staticroutes: `0.0.0.0/0 ${HOST_IP}`,
      serverid: "169.254.75.10",
      mtu: String(POD_MTU),
      dns: "10.96.0.10",
      hostname: "testvmi",
    });
  }, 30_000);

  it("does not answer a client with another MAC", async () => {
    const other = await fixture.lab.netns("o");
    await fixture.attachGuest("k6t-eth0", "02:00:00:aa:bb:99", other);
    expect(await fixture.udhcpc(other)).toBeUndefined();
  }, 30_000);

  it("lets the node reach the guest at the pod IP", async () => {
    const server = await startTcpServer(fixture.lab, fixture.guest, 8090, "guest");
    const peer = server.nextPeer();
    expect(await tcpRequest(fixture.lab, fixture.host, POD_IP, 8090)).toEqual({ data: "guest" });
    expect(await peer).toBe(HOST_IP);
  }, 30_000);

  it("tears down to the pod namespace CNI made", async () => {
    await dhcpServer?.stop();
    dhcpServer = undefined;
    for (const prefix of ["kvg", "kvo"]) {
      await fixture.lab.run(fixture.pod, "ip", ["link", "del", fixture.lab.linkName(prefix)]);
    }
    const netPod = fixture.netPod([bridgeIface], [network]);
    await netPod.teardown();
    expect(await snapshotNetns(fixture.podExec)).toEqual(before);
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read()).toBeUndefined();
    await netPod.teardown();
    expect(await snapshotNetns(fixture.podExec)).toEqual(before);
  }, 30_000);
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interface as VMIInterface, Network } from "../../../api/generated/v1.js";
import { dhcpInterfaceCache } from "../../cache/dhcpconfig.js";
import { podInterfaceCache } from "../../cache/podinterface.js";
import { generateDhcpServerConfig } from "../../dhcp/configurator.js";
import type { DhcpServerProcess } from "../../dhcp/run-in-netns.js";
import { runDhcpServerInNetns } from "../../dhcp/run-in-netns.js";
import { readSysctl } from "../../driver/procsys.js";
import type { PodFixture } from "../../testing/pod-fixture.js";
import {
  HOST_IP,
  LAUNCHER_UID,
  POD_IP,
  POD_MTU,
  RESOLV_CONF,
  RecordingExec,
  createPodFixture,
  ipv4Addresses,
  linkDetails,
  snapshotNetns,
} from "../../testing/pod-fixture.js";
import { netnsTestsUnavailableReason } from "../../testing/netns-lab.js";
import { startTcpServer, tcpRequest } from "../../testing/tcp-probe.js";
import { runnable } from "../../../testutils/requirement.js";

// The masquerade binding in real namespaces: links, NAT, DHCP to a stand-in guest, SNAT outwards,
// DNAT inwards, idempotence and teardown.

const canRun = runnable("the masquerade network namespace tests", await netnsTestsUnavailableReason());

const GUEST_MAC = "02:00:00:aa:bb:01";
const network: Network = { name: "default", pod: {} };
const masqueradeIface = (extra: Partial<VMIInterface> = {}): VMIInterface => ({
  name: "default",
  masquerade: {},
  ...extra,
});

describe.runIf(canRun)("masquerade binding in a pod network namespace", () => {
  let fixture: PodFixture;
  let before: unknown;
  let dhcpServer: DhcpServerProcess | undefined;

  beforeAll(async () => {
    fixture = await createPodFixture();
    before = await snapshotNetns(fixture.podExec);
    await fixture.netPod([masqueradeIface()], [network]).setup();
  }, 60_000);

  afterAll(async () => {
    await dhcpServer?.stop();
    // Throws when a namespace or link of the lab is left behind.
    await fixture?.cleanup();
  });

  it("creates bridge k6t-eth0 holding the VM network's gateway, with the fixed MAC and the pod's MTU", async () => {
    const bridge = await linkDetails(fixture.podExec, "k6t-eth0");
    expect(bridge).toMatchObject({
      address: "02:00:00:00:00:00",
      mtu: POD_MTU,
      linkinfo: { info_kind: "bridge" },
    });
    expect(ipv4Addresses(bridge)).toEqual([{ family: "inet", local: "10.0.2.1", prefixlen: 24 }]);
    expect(await readSysctl(fixture.podExec, "net/ipv4/ip_forward")).toBe(1);
    expect(await readSysctl(fixture.podExec, "net/ipv4/conf/k6t-eth0/route_localnet")).toBe(1);
  });

  it("creates tap0 on the bridge, owned by the launcher's user, single-queue", async () => {
    const tap = await linkDetails(fixture.podExec, "tap0");
    expect(tap).toMatchObject({
      master: "k6t-eth0",
      mtu: POD_MTU,
      linkinfo: {
        info_kind: "tun",
        info_data: { type: "tap", user: LAUNCHER_UID, group: LAUNCHER_UID, multi_queue: false },
      },
    });
  });

  it("installs upstream's nat chains", async () => {
    const listing = await fixture.podExec.query("nft", ["list", "table", "ip", "nat"]);
    for (const chain of [
      "prerouting",
      "input",
      "output",
      "postrouting",
      "KUBEVIRT_PREINBOUND",
      "KUBEVIRT_POSTINBOUND",
    ]) {
      expect(listing).toContain(`chain ${chain} {`);
    }
    expect(listing).toMatch(/ip saddr 10\.0\.2\.2 counter packets \d+ bytes \d+ masquerade/);
    expect(listing).toMatch(/iifname "eth0" counter packets \d+ bytes \d+ jump KUBEVIRT_PREINBOUND/);
  });

  it("caches the interface config for the launcher and the pod IP for the handler", async () => {
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read()).toEqual({
      name: "eth0",
      ip: "10.0.2.2/24",
      advertisingIPAddr: "10.0.2.1",
      gateway: "10.0.2.1",
      mtu: POD_MTU,
      ipamDisabled: false,
      tapName: "tap0",
      bridgeName: "k6t-eth0",
    });
    const cached = await podInterfaceCache(
      fixture.privateDir,
      "6f1b9a5e-0000-4000-8000-00000000beef",
      "default",
    ).read();
    expect(cached).toMatchObject({ podIP: POD_IP, podIPs: [POD_IP], networkState: 2 });
  });

  it("changes nothing when set up a second time", async () => {
    const snapshot = await snapshotNetns(fixture.podExec);
    const recording = new RecordingExec(fixture.podExec);
    await fixture.netPod([masqueradeIface()], [network], recording).setup();
    expect(recording.changes).toEqual([]);
    expect(await snapshotNetns(fixture.podExec)).toEqual(snapshot);
  }, 30_000);

  it("gives the guest 10.0.2.2/24, the gateway, the pod's MTU, DNS and hostname by DHCP", async () => {
    await fixture.attachGuest("k6t-eth0", GUEST_MAC);
    const cached = await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read();
    const config = generateDhcpServerConfig(cached!, {
      resolvConf: RESOLV_CONF,
      hostname: "testvmi",
      domainMAC: GUEST_MAC,
    });
    dhcpServer = await runDhcpServerInNetns(fixture.pod.path, config!);
    const lease = await fixture.udhcpc();
    expect(lease).toMatchObject({
      ip: "10.0.2.2",
      mask: "24",
      router: "10.0.2.1",
      serverid: "10.0.2.1",
      mtu: String(POD_MTU),
      dns: "10.96.0.10",
      hostname: "testvmi",
      domain: "default.svc.cluster.local",
      lease: String(999 * 24 * 3600),
    });
  }, 30_000);

  it("lets the guest reach the node with the pod IP as its source (SNAT)", async () => {
    const server = await startTcpServer(fixture.lab, fixture.host, 8080, "node");
    const peer = server.nextPeer();
    expect(await tcpRequest(fixture.lab, fixture.guest, HOST_IP, 8080)).toEqual({ data: "node" });
    expect(await peer).toBe(POD_IP);
  }, 30_000);

  it("forwards inbound connections on any port to the guest (DNAT) when no ports are listed", async () => {
    await startTcpServer(fixture.lab, fixture.guest, 8081, "guest-8081");
    const server = await startTcpServer(fixture.lab, fixture.guest, 8082, "guest-8082");
    const peer = server.nextPeer();
    expect(await tcpRequest(fixture.lab, fixture.host, POD_IP, 8081)).toEqual({ data: "guest-8081" });
    expect(await tcpRequest(fixture.lab, fixture.host, POD_IP, 8082)).toEqual({ data: "guest-8082" });
    expect(await peer).toBe(HOST_IP);
  }, 30_000);

  it("forwards only the listed ports when the interface lists ports", async () => {
    const withPorts = fixture.netPod([masqueradeIface({ ports: [{ port: 8081 }] })], [network]);
    await withPorts.teardown();
    await withPorts.setup();
    await fixture.reattachGuest("k6t-eth0");
    expect(await tcpRequest(fixture.lab, fixture.host, POD_IP, 8081)).toEqual({ data: "guest-8081" });
    expect(await tcpRequest(fixture.lab, fixture.host, POD_IP, 8082)).toEqual({ error: "ECONNREFUSED" });
  }, 30_000);

  it("tears down to the pod namespace CNI made, leaving no link, nat table or cache", async () => {
    await dhcpServer?.stop();
    dhcpServer = undefined;
    await fixture.lab.run(fixture.pod, "ip", ["link", "del", fixture.lab.linkName("kvg")]);
    const netPod = fixture.netPod([masqueradeIface({ ports: [{ port: 8081 }] })], [network]);
    await netPod.teardown();
    expect(await snapshotNetns(fixture.podExec)).toEqual(before);
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, "eth0").read()).toBeUndefined();
    await netPod.teardown();
    expect(await snapshotNetns(fixture.podExec)).toEqual(before);
  }, 30_000);
});

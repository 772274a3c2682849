import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Interface as VMIInterface, Network } from "../../../api/generated/v1.js";
import { dhcpInterfaceCache } from "../../cache/dhcpconfig.js";
import { generateDhcpServerConfig } from "../../dhcp/configurator.js";
import type { DhcpServerProcess } from "../../dhcp/run-in-netns.js";
import { runDhcpServerInNetns } from "../../dhcp/run-in-netns.js";
import { netnsTestsUnavailableReason } from "../../testing/netns-lab.js";
import type { PodFixture } from "../../testing/pod-fixture.js";
import {
  LAUNCHER_UID,
  RESOLV_CONF,
  createPodFixture,
  ipv4Addresses,
  linkDetails,
  snapshotNetns,
} from "../../testing/pod-fixture.js";
import { startTcpServer, tcpRequest } from "../../testing/tcp-probe.js";
import { runnable } from "../../../testutils/requirement.js";

// A VMI on the pod network (masquerade) and two secondary multus networks (bridge), as multus leaves
// the pod: eth0, plus one interface per secondary network (pod<hash>, or net1, net2 in pods of older
// releases), one with an IP from its NAD's IPAM and one without. Each secondary gets its own k6t-
// bridge and tap, named after its pod interface.

const canRun = runnable("the secondary network namespace tests", await netnsTestsUnavailableReason());

const networks: Network[] = [
  { name: "default", pod: {} },
  { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
  { name: "attachnet2", multus: { networkName: "attachnet2" } },
];
const interfaces: VMIInterface[] = [
  { name: "default", masquerade: {} },
  { name: "attachnet1", bridge: {} },
  { name: "attachnet2", bridge: {} },
];
interface SecondaryLink {
  pod: string;
  bridge: string;
  nic: string;
  tap: string;
  mac: string;
  mtu: number;
}
const hashed = (hash: string, mac: string, mtu: number): SecondaryLink => ({
  pod: `pod${hash}`,
  bridge: `k6t-${hash}`,
  nic: `${hash}-nic`,
  tap: `tap${hash}`,
  mac,
  mtu,
});
// Pods of older KubeVirt releases: net1, net2; upstream's names follow ("tap" + the name minus 3 letters).
const ordinal = (index: number, mac: string, mtu: number): SecondaryLink => ({
  pod: `net${index}`,
  bridge: `k6t-net${index}`,
  nic: `net${index}-nic`,
  tap: `tap${index}`,
  mac,
  mtu,
});
const SCHEMES: Array<[string, SecondaryLink, SecondaryLink]> = [
  [
    "hashed",
    hashed("17274e5ba35", "02:42:c0:a8:0a:02", 1300),
    hashed("e937a4d0f8b", "02:42:c0:a8:0b:02", 1500),
  ],
  ["ordinal", ordinal(1, "02:42:c0:a8:0a:02", 1300), ordinal(2, "02:42:c0:a8:0b:02", 1500)],
];
const NET1_IP = "192.168.10.2";
const NET1_PEER = "192.168.10.1";

describe.runIf(canRun).each(SCHEMES)("secondary bridge networks named the %s way", (_scheme, NET1, NET2) => {
  let fixture: PodFixture;
  let before: unknown;
  let dhcpServer: DhcpServerProcess | undefined;

  /** A veth whose pod end is what multus' delegate CNI would have made. */
  async function secondaryLink(prefix: string, link: SecondaryLink, address?: string): Promise<void> {
    const { lab, host, pod } = fixture;
    const hostSide = lab.linkName(prefix);
    await lab.run(host, "ip", [
      "link",
      "add",
      hostSide,
      "type",
      "veth",
      "peer",
      "name",
      link.pod,
      "netns",
      pod.name,
    ]);
    await lab.run(host, "ip", ["link", "set", hostSide, "up"]);
    await lab.run(pod, "ip", ["link", "set", link.pod, "address", link.mac, "mtu", String(link.mtu)]);
    if (address) {
      await lab.run(host, "ip", ["addr", "add", `${NET1_PEER}/24`, "dev", hostSide]);
      await lab.run(pod, "ip", ["addr", "add", address, "dev", link.pod]);
    }
    await lab.run(pod, "ip", ["link", "set", link.pod, "up"]);
  }

  beforeAll(async () => {
    fixture = await createPodFixture();
    await secondaryLink("kvs", NET1, `${NET1_IP}/24`);
    await secondaryLink("kvt", NET2);
    before = await snapshotNetns(fixture.podExec);
    await fixture.netPod(interfaces, networks).setup();
  }, 60_000);

  afterAll(async () => {
    await dhcpServer?.stop();
    await fixture?.cleanup();
  });

  it("keeps the primary's masquerade bridge k6t-eth0 and tap0", async () => {
    expect(await linkDetails(fixture.podExec, "tap0")).toMatchObject({ master: "k6t-eth0" });
    expect(await linkDetails(fixture.podExec, "eth0")).toMatchObject({ linkinfo: { info_kind: "veth" } });
  });

  it.each([
    ["attachnet1", NET1],
    ["attachnet2", NET2],
  ])("bridges %s's pod interface, renamed <name>-nic, with its tap at its MTU", async (_name, link) => {
    const bridge = link.bridge;
    expect(await linkDetails(fixture.podExec, link.nic)).toMatchObject({
      master: bridge,
      mtu: link.mtu,
      linkinfo: { info_kind: "veth" },
    });
    expect(await linkDetails(fixture.podExec, link.tap)).toMatchObject({
      master: bridge,
      mtu: link.mtu,
      linkinfo: { info_data: { type: "tap", user: LAUNCHER_UID, group: LAUNCHER_UID } },
    });
    // The pod interface's name, MAC and addresses stay with a placeholder for CNI.
    expect(await linkDetails(fixture.podExec, link.pod)).toMatchObject({ address: link.mac });
  });

  it("gives a bridge whose pod interface has an IP the link-local address of its interface's position", async () => {
    const withIP = await linkDetails(fixture.podExec, NET1.bridge);
    expect(ipv4Addresses(withIP)).toEqual([{ family: "inet", local: "169.254.75.11", prefixlen: 32 }]);
    const withoutIP = await linkDetails(fixture.podExec, NET2.bridge);
    expect(ipv4Addresses(withoutIP)).toEqual([]);
  });

  it("caches a DHCP offer only for the secondary interface with an IP", async () => {
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, NET1.pod).read()).toEqual({
      name: NET1.pod,
      ip: `${NET1_IP}/24`,
      mac: NET1.mac,
      advertisingIPAddr: "169.254.75.11",
      mtu: NET1.mtu,
      ipamDisabled: false,
      tapName: NET1.tap,
      bridgeName: NET1.bridge,
    });
    expect(await dhcpInterfaceCache(fixture.launcherRootFs, NET2.pod).read()).toEqual({ ipamDisabled: true });
  });

  it("offers the guest the secondary interface's IP by DHCP and lets its peer reach it", async () => {
    await fixture.attachGuest(NET1.bridge, NET1.mac);
    const cached = await dhcpInterfaceCache(fixture.launcherRootFs, NET1.pod).read();
    const config = generateDhcpServerConfig(cached!, { resolvConf: RESOLV_CONF, hostname: "testvmi" });
    dhcpServer = await runDhcpServerInNetns(fixture.pod.path, config!);
    expect(await fixture.udhcpc()).toMatchObject({ ip: NET1_IP, mask: "24", mtu: String(NET1.mtu) });
    const server = await startTcpServer(fixture.lab, fixture.guest, 8091, "guest");
    const peer = server.nextPeer();
    expect(await tcpRequest(fixture.lab, fixture.host, NET1_IP, 8091)).toEqual({ data: "guest" });
    expect(await peer).toBe(NET1_PEER);
  }, 30_000);

  it("tears down to the pod namespace multus made", async () => {
    await dhcpServer?.stop();
    dhcpServer = undefined;
    await fixture.lab.run(fixture.pod, "ip", ["link", "del", fixture.lab.linkName("kvg")]);
    await fixture.netPod(interfaces, networks).teardown();
    expect(await snapshotNetns(fixture.podExec)).toEqual(before);
  }, 30_000);
});

import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Interface as VMIInterface, Network } from "../../api/generated/v1.js";
import type { NetnsExec } from "../driver/netns-exec.js";
import { NsenterExec, runCommand } from "../driver/netns-exec.js";
import { readStatus } from "../driver/nmstate/status.js";
import { NetPod } from "../setup/netpod/netpod.js";
import type { NetPodConfig } from "../setup/netpod/netpod.js";
import type { Netns } from "./netns-lab.js";
import { NetnsLab } from "./netns-lab.js";

// A pod as CNI would leave it, in throwaway namespaces: "host" (the node side, 10.244.250.1) joined
// by a veth to the pod's eth0 (10.244.250.2/24, MTU 1400, default route via the host), and an empty
// "guest" namespace that stands in for the VM behind the tap.

export const HOST_IP = "10.244.250.1";
export const POD_IP = "10.244.250.2";
export const POD_MAC = "02:42:0a:f4:fa:02";
export const POD_MTU = 1400;
export const LAUNCHER_UID = 107;
export const RESOLV_CONF =
  "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\n";

export interface PodFixture {
  lab: NetnsLab;
  host: Netns;
  pod: Netns;
  guest: Netns;
  podExec: NetnsExec;
  dir: string;
  launcherRootFs: string;
  privateDir: string;
  netPod(interfaces: VMIInterface[], networks: Network[], exec?: NetnsExec): NetPod;
  netPodConfig(interfaces: VMIInterface[], networks: Network[], exec?: NetnsExec): NetPodConfig;
  /** A veth on the pod's bridge whose far end is eth0 with `mac` in the guest (or another) namespace. */
  attachGuest(bridge: string, mac: string, netns?: Netns): Promise<string>;
  /** Puts the guest's veth on a bridge again (after the bridge was recreated). */
  reattachGuest(bridge: string): Promise<void>;
  /** Runs busybox udhcpc on the guest's eth0; the environment of its "bound" event, or undefined. */
  udhcpc(netns?: Netns): Promise<Record<string, string> | undefined>;
  cleanup(): Promise<void>;
}

export async function createPodFixture(): Promise<PodFixture> {
  const lab = new NetnsLab();
  const dir = await mkdtemp(join(tmpdir(), "kvtsnet-"));
  const [host, pod, guest] = [await lab.netns("h"), await lab.netns("p"), await lab.netns("g")];
  const hostVeth = lab.linkName("kvh");
  await lab.run(host, "ip", [
    "link",
    "add",
    hostVeth,
    "mtu",
    String(POD_MTU),
    "type",
    "veth",
    "peer",
    "name",
    "eth0",
    "netns",
    pod.name,
  ]);
  await lab.run(host, "ip", ["addr", "add", `${HOST_IP}/24`, "dev", hostVeth]);
  await lab.run(host, "ip", ["link", "set", hostVeth, "up"]);
  await lab.run(pod, "ip", ["link", "set", "eth0", "address", POD_MAC, "mtu", String(POD_MTU)]);
  await lab.run(pod, "ip", ["addr", "add", `${POD_IP}/24`, "dev", "eth0"]);
  await lab.run(pod, "ip", ["link", "set", "eth0", "up"]);
  await lab.run(pod, "ip", ["route", "add", "default", "via", HOST_IP]);
  const podExec = new NsenterExec(pod.path);
  const launcherRootFs = join(dir, "launcher-root");
  const privateDir = join(dir, "handler-private");

  return {
    lab,
    host,
    pod,
    guest,
    podExec,
    dir,
    launcherRootFs,
    privateDir,
    netPod: (interfaces, networks, exec = podExec) =>
      new NetPod(netPodConfig(exec, interfaces, networks, launcherRootFs, privateDir)),
    netPodConfig: (interfaces, networks, exec = podExec) =>
      netPodConfig(exec, interfaces, networks, launcherRootFs, privateDir),
    attachGuest: async (bridge, mac, netns = guest) => {
      const podSide = lab.linkName(netns === guest ? "kvg" : "kvo");
      await lab.run(pod, "ip", [
        "link",
        "add",
        podSide,
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        netns.name,
      ]);
      await lab.run(pod, "ip", ["link", "set", podSide, "master", bridge]);
      await lab.run(pod, "ip", ["link", "set", podSide, "up"]);
      await lab.run(netns, "ip", ["link", "set", "eth0", "address", mac]);
      await lab.run(netns, "ip", ["link", "set", "eth0", "up"]);
      return podSide;
    },
    reattachGuest: async (bridge) => {
      await lab.run(pod, "ip", ["link", "set", lab.linkName("kvg"), "master", bridge]);
    },
    udhcpc: (netns = guest) => runUdhcpc(lab, netns, dir),
    cleanup: async () => {
      await lab.cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function netPodConfig(
  exec: NetnsExec,
  interfaces: VMIInterface[],
  networks: Network[],
  launcherRootFs: string,
  privateDir: string,
): NetPodConfig {
  return {
    exec,
    vmiUID: "6f1b9a5e-0000-4000-8000-00000000beef",
    vmiInterfaces: interfaces,
    vmiNetworks: networks,
    ownerId: LAUNCHER_UID,
    launcherRootFs,
    privateDir,
    log: pino({ level: "silent" }),
  };
}

// udhcpc's event script: records the environment of each event, and configures the address and
// default route as a guest's own script would.
const UDHCPC_SCRIPT = `#!/bin/sh
env > "$LEASE_DIR/$1.env"
if [ "$1" = bound ]; then
  ip addr add "$ip/$mask" dev "$interface"
  [ -n "$router" ] && ip route replace default via "$router" dev "$interface"
fi
exit 0
`;

async function runUdhcpc(
  lab: NetnsLab,
  netns: Netns,
  dir: string,
): Promise<Record<string, string> | undefined> {
  const leaseDir = await mkdtemp(join(dir, "lease-"));
  const script = join(leaseDir, "event.sh");
  await writeFile(script, UDHCPC_SCRIPT);
  await chmod(script, 0o755);
  const args = ["nsenter", `--net=${netns.path}`, "--", "busybox", "udhcpc", "-i", "eth0", "-f", "-q", "-n"];
  args.push("-t", "3", "-T", "1", "-s", script);
  try {
    await runCommand("env", [`LEASE_DIR=${leaseDir}`, ...args]);
  } catch {
    return undefined;
  }
  const text = await readFile(join(leaseDir, "bound.env"), "utf8");
  return Object.fromEntries(
    text.split("\n").flatMap((line) => {
      const at = line.indexOf("=");
      return at > 0 ? [[line.slice(0, at), line.slice(at + 1)]] : [];
    }),
  );
}

/** The namespace's links, addresses, routes, ARP/forwarding sysctls and nft tables, for comparisons. */
export async function snapshotNetns(exec: NetnsExec): Promise<unknown> {
  const status = await readStatus(exec);
  const tables = await exec.query("nft", ["list", "tables"]);
  const interfaces = status.interfaces.map((iface) => ({
    ...iface,
    ipv6: iface.ipv6?.address?.filter((address) => !address.ip.startsWith("fe80:")) ?? [],
  }));
  return { interfaces, routes: status.routes, linuxStack: status.linuxStack, tables };
}

/** A NetnsExec that records every change it is asked to make. */
export class RecordingExec implements NetnsExec {
  readonly changes: string[][] = [];
  constructor(private readonly inner: NetnsExec) {}
  get netnsPath(): string {
    return this.inner.netnsPath;
  }
  query(command: string, args: readonly string[]): Promise<string> {
    return this.inner.query(command, args);
  }
  change(command: string, args: readonly string[], stdin?: string): Promise<string> {
    this.changes.push([command, ...args]);
    return this.inner.change(command, args, stdin);
  }
}

/** Link details as `ip -j -d link show dev <name>` reports them. */
export async function linkDetails(exec: NetnsExec, name: string): Promise<Record<string, unknown>> {
  const [link] = JSON.parse(await exec.query("ip", ["-j", "-d", "addr", "show", "dev", name])) as Array<
    Record<string, unknown>
  >;
  if (!link) throw new Error(`no link ${name}`);
  return link;
}

/** The IPv4 entries of a link's addr_info, reduced to family, address and prefix length. */
export function ipv4Addresses(
  link: Record<string, unknown>,
): Array<{ family: string; local: string; prefixlen: number }> {
  const entries = (link["addr_info"] ?? []) as Array<{ family: string; local: string; prefixlen: number }>;
  return entries
    .filter((entry) => entry.family === "inet")
    .map(({ family, local, prefixlen }) => ({ family, local, prefixlen }));
}

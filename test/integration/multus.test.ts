// Multus as each node's primary CNI against the real control plane: a plain pod's IP comes from the cluster
// network through multus; pods naming NetworkAttachmentDefinitions (JSON and plain-name forms) get net1/net2
// from the suite's secondary bridges, a network-status annotation listing every interface, and reach each
// other across nodes on that segment; a missing NAD fails the sandbox as kubelet reports it and leaks
// nothing; fifty pods with two secondary networks come and go without leaving a reservation or a port.
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeStateDir } from "../../deploy/local/cluster/nodes.js";
import { runCommand } from "../../deploy/local/cluster/run-command.js";
import {
  SECONDARY_NETWORKS,
  bridgeNetworkConfig,
  secondaryLeases,
} from "../../deploy/local/cluster/secondary-networks.js";
import { topology } from "../../deploy/local/cluster/topology.js";
import { LOCAL_CLUSTER_NETWORK } from "../../deploy/local/node-agent/runtime/cluster-network-config.js";
import { netnsName } from "../../deploy/local/node-agent/runtime/names.js";
import { NodeLayout } from "../../deploy/local/node-agent/runtime/node-layout.js";
import { networkStatusesFromPod } from "../../pkg/network/multus/status.js";
import type { NetworkStatus } from "../../pkg/network/multus/status.js";
import { cluster, ensureNodes, eventually, kubectl, kubectlOk } from "./harness.js";

const NS = "multus-it";
const [BLUE_SEGMENT, GREEN_SEGMENT] = SECONDARY_NETWORKS as [
  (typeof SECONDARY_NETWORKS)[number],
  (typeof SECONDARY_NETWORKS)[number],
];
// the upper halves of the segments: the e2e suite's NADs use .10-.49 of the same bridges
const BLUE_RANGE = BLUE_SEGMENT.subnet.replace(/\.0\/24$/, ".128/25");
const GREEN_RANGE = GREEN_SEGMENT.subnet.replace(/\.0\/24$/, ".128/25");
/** For a definition made while a pod waits for it, apart from green's addresses on the same bridge. */
const LATE_RANGE = GREEN_SEGMENT.subnet.replace(/\.0\/24$/, ".64/27");
const [NODE_A, NODE_B] = topology.nodes as unknown as [
  (typeof topology.nodes)[number],
  (typeof topology.nodes)[number],
];
const NETWORKS_ANNOTATION = "k8s.v1.cni.cncf.io/networks";
const STATUS_ANNOTATION = "k8s.v1.cni.cncf.io/network-status";

interface PodJson {
  metadata: { name: string; uid: string; annotations?: Record<string, string> };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string };
}

function nad(name: string, bridge: string, subnet: string): object {
  return {
    apiVersion: "k8s.cni.cncf.io/v1",
    kind: "NetworkAttachmentDefinition",
    metadata: { name, namespace: NS },
    // the network name is host-local's folder under /var/lib/cni/networks
    spec: { config: bridgeNetworkConfig(`${NS}-${name}`, bridge, subnet) },
  };
}

function pod(
  name: string,
  networks?: string,
  nodeName?: string,
  labels: Record<string, string> = {},
): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: NS,
      labels,
      ...(networks !== undefined ? { annotations: { [NETWORKS_ANNOTATION]: networks } } : {}),
    },
    spec: {
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      ...(nodeName !== undefined ? { nodeName } : {}),
      containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }],
    },
  };
}

async function getPod(name: string): Promise<PodJson> {
  return JSON.parse(await kubectlOk(["-n", NS, "get", "pod", name, "-o", "json"])) as PodJson;
}

async function runningPod(name: string): Promise<PodJson> {
  return eventually(async () => {
    const json = await getPod(name);
    if (json.status.phase !== "Running" || !json.status.podIP) throw new Error(`${name} is not running yet`);
    return json;
  }, 120_000);
}

function networkStatus(json: PodJson): NetworkStatus[] {
  const text = json.metadata.annotations?.[STATUS_ANNOTATION];
  if (text === undefined) throw new Error(`${json.metadata.name} has no ${STATUS_ANNOTATION} annotation`);
  return networkStatusesFromPod(json);
}

/** `ip -4 -o addr` of an interface in the pod's network namespace, as the host sees it. */
async function addressIn(json: PodJson, ifName: string): Promise<string> {
  const netns = netnsName(LOCAL_CLUSTER_NETWORK.interfacePrefix, json.metadata.uid);
  const result = await runCommand("ip", ["-n", netns, "-4", "-o", "addr", "show", "dev", ifName]);
  if (result.code !== 0) throw new Error(`ip -n ${netns} addr show dev ${ifName}: ${result.stderr}`);
  const match = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(result.stdout);
  if (!match?.[1]) throw new Error(`${ifName} of ${json.metadata.name} has no IPv4 address`);
  return match[1];
}

function inRange(address: string, cidr: string): boolean {
  const [base, length] = cidr.split("/") as [string, string];
  const value = (ip: string) => ip.split(".").reduce((sum, octet) => sum * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(length));
  return value(address) >= value(base) && value(address) < value(base) + size;
}

/** The host ends attached to a bridge (its port list). */
async function bridgePorts(bridge: string): Promise<string[]> {
  const result = await runCommand("ip", ["-o", "link", "show", "master", bridge]);
  return result.stdout
    .split("\n")
    .map((line) => line.split(": ")[1]?.split("@")[0] ?? "")
    .filter(Boolean)
    .sort();
}

/** Every interface on the secondary bridges and the node bridges, and every reservation of both. */
/**
 * The secondary segments as this file alone uses them: host-local's reservations and the bridges' ports.
 * The node bridges are left out: other integration files' pods come and go there meanwhile (sandboxTraces
 * checks them for one pod).
 */
async function hostNetworkState(): Promise<Record<string, string[]>> {
  const state: Record<string, string[]> = { leases: await secondaryLeases() };
  for (const segment of SECONDARY_NETWORKS) state[segment.bridge] = await bridgePorts(segment.bridge);
  return state;
}

/** host-local's reservations on the node networks (one file per address, naming the sandbox). */
async function nodeNetworkLeases(): Promise<string[]> {
  const leases: string[] = [];
  for (const node of topology.nodes) {
    const bridge = `${LOCAL_CLUSTER_NETWORK.interfacePrefix}${node.name}`;
    const dir = path.join(new NodeLayout(nodeStateDir(cluster, node)).cniDir, "networks", bridge);
    const files = await readdir(dir).catch((): string[] => []);
    leases.push(...files.filter((file) => /^\d/.test(file)).map((file) => path.join(dir, file)));
  }
  return leases;
}

/** What a sandbox could leave behind: its namespace, multus's cache, any reservation naming its UID. */
async function sandboxTraces(uid: string): Promise<string[]> {
  const traces: string[] = [];
  const netns = netnsName(LOCAL_CLUSTER_NETWORK.interfacePrefix, uid);
  if ((await runCommand("ip", ["netns", "list"])).stdout.split("\n").some((l) => l.split(" ")[0] === netns))
    traces.push(`netns ${netns}`);
  for (const node of topology.nodes) {
    const cniDir = new NodeLayout(nodeStateDir(cluster, node)).cniDir;
    const files = await readdir(path.join(cniDir, "multus")).catch((): string[] => []);
    if (files.includes(uid)) traces.push(`multus cache of ${uid} on ${node.name}`);
  }
  const leases = [...(await secondaryLeases()), ...(await nodeNetworkLeases())];
  for (const lease of leases) {
    if ((await readFile(lease, "utf8").catch(() => "")).startsWith(uid)) traces.push(`reservation ${lease}`);
  }
  return traces;
}

beforeAll(async () => {
  await ensureNodes();
  await kubectl(["delete", "namespace", NS, "--wait=true", "--ignore-not-found"]);
  await kubectlOk(["create", "namespace", NS]);
  await kubectlOk(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [nad("blue", BLUE_SEGMENT.bridge, BLUE_RANGE), nad("green", GREEN_SEGMENT.bridge, GREEN_RANGE)],
    }),
  );
}, 600_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", NS, "--wait=true", "--ignore-not-found", "--timeout=120s"]);
}, 180_000);

describe("multus on the local cluster", () => {
  it("serves NetworkAttachmentDefinitions under their short name", async () => {
    const names = await kubectlOk(["-n", NS, "get", "net-attach-def", "-o", "name"]);
    expect(names.split("\n").filter(Boolean).sort()).toEqual([
      "networkattachmentdefinition.k8s.cni.cncf.io/blue",
      "networkattachmentdefinition.k8s.cni.cncf.io/green",
    ]);
  });

  it("keeps the secondary segments inside the machine: no host address, routed nowhere, guarded", async () => {
    for (const segment of SECONDARY_NETWORKS) {
      const addresses = await runCommand("ip", ["-o", "addr", "show", "dev", segment.bridge]);
      expect(addresses.code).toBe(0);
      expect(addresses.stdout).toBe("");
      // the kernel refuses a route to any address of it (a blackhole, not the uplink's default route)
      const route = await runCommand("ip", ["route", "get", segment.subnet.replace(/0\/24$/, "7")]);
      expect(route.code).not.toBe(0);
    }
    expect((await runCommand("ip", ["route", "show", "type", "blackhole"])).stdout).toContain(
      "10.245.0.0/16",
    );
    const table = `inet ${LOCAL_CLUSTER_NETWORK.tableName}`;
    for (const set of ["pod_ranges", "cluster_ranges"]) {
      const listing = await runCommand("nft", ["list", "set", ...table.split(" "), set]);
      expect(listing.stdout).toContain("10.245.0.0/16");
    }
  });

  it("gives a plain pod its IP from the cluster network through multus", async () => {
    await kubectlOk(["apply", "-f", "-"], JSON.stringify(pod("plain", undefined, NODE_A.name)));
    const json = await runningPod("plain");
    expect(inRange(json.status.podIP as string, NODE_A.podCIDR)).toBe(true);
    expect(await addressIn(json, "eth0")).toBe(json.status.podIP);
    // multus answered for the cluster network and reported it
    const status = await eventually(async () => networkStatus(await getPod("plain")));
    expect(status).toEqual([
      expect.objectContaining({ interface: "eth0", ips: [json.status.podIP], default: true }),
    ]);
  });

  it("attaches the networks a pod names (JSON and plain-name forms), on one segment across the nodes", async () => {
    const annotationJson = JSON.stringify([{ name: "blue", interface: "net1" }]);
    await kubectlOk(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [pod("json-form", annotationJson, NODE_A.name), pod("name-form", "blue,green", NODE_B.name)],
      }),
    );
    const [jsonForm, nameForm] = await Promise.all([runningPod("json-form"), runningPod("name-form")]);
    expect(inRange(jsonForm.status.podIP as string, NODE_A.podCIDR)).toBe(true);
    expect(inRange(nameForm.status.podIP as string, NODE_B.podCIDR)).toBe(true);

    const blueA = await addressIn(jsonForm, "net1");
    const blueB = await addressIn(nameForm, "net1");
    const greenB = await addressIn(nameForm, "net2");
    expect([blueA, blueB].every((ip) => inRange(ip, BLUE_RANGE))).toBe(true);
    expect(inRange(greenB, GREEN_RANGE)).toBe(true);

    const status = await eventually(async () => networkStatus(await getPod("name-form")));
    expect(status).toEqual([
      expect.objectContaining({ interface: "eth0", ips: [nameForm.status.podIP], default: true }),
      expect.objectContaining({ name: `${NS}/blue`, interface: "net1", ips: [blueB] }),
      expect.objectContaining({ name: `${NS}/green`, interface: "net2", ips: [greenB] }),
    ]);
    expect(networkStatus(await getPod("json-form"))).toEqual([
      expect.objectContaining({ interface: "eth0", default: true }),
      expect.objectContaining({ name: `${NS}/blue`, interface: "net1", ips: [blueA] }),
    ]);
    // the pods' net1 share kvts-sec1 although they run on different nodes
    const ping = await kubectl([
      "-n",
      NS,
      "exec",
      "name-form",
      "--",
      "ping",
      "-c",
      "1",
      "-W",
      "5",
      "-I",
      "net1",
      blueA,
    ]);
    expect(ping.stdout).toContain("1 packets received");
  });

  it("fails the sandbox of a pod naming a missing NAD as kubelet reports it, leaks nothing, and retries", async () => {
    const before = await hostNetworkState();
    await kubectlOk(["apply", "-f", "-"], JSON.stringify(pod("missing-nad", "absent", NODE_A.name)));
    const uid = (await getPod("missing-nad")).metadata.uid;
    const event = await eventually(async () => {
      const list = JSON.parse(
        await kubectlOk([
          "-n",
          NS,
          "get",
          "events",
          "--field-selector",
          "involvedObject.name=missing-nad,reason=FailedCreatePodSandBox",
          "-o",
          "json",
        ]),
      ) as { items: Array<{ type: string; message: string }> };
      const found = list.items[0];
      if (!found) throw new Error("no FailedCreatePodSandBox event yet");
      return found;
    }, 60_000);
    expect(event.type).toBe("Warning");
    expect(event.message).toContain(
      `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "${uid}": ` +
        'plugin type="multus" failed (add): ',
    );
    expect(event.message).toContain(
      "cannot find a network-attachment-definition (absent) in namespace (multus-it)",
    );
    expect((await getPod("missing-nad")).status.phase).toBe("Pending");
    // between attempts (one may be under way right now) nothing of the sandbox is left
    await eventually(async () => {
      expect(await sandboxTraces(uid)).toEqual([]);
      expect(await hostNetworkState()).toEqual(before);
    }, 15_000);
    // the agent keeps trying: once the definition exists, the pod starts with it
    await kubectlOk(["apply", "-f", "-"], JSON.stringify(nad("absent", GREEN_SEGMENT.bridge, LATE_RANGE)));
    const started = await runningPod("missing-nad");
    expect(inRange(await addressIn(started, "net1"), LATE_RANGE)).toBe(true);
    await kubectlOk(["-n", NS, "delete", "pod", "missing-nad", "--wait=true"]);
    // the sandbox goes after the pod object (as kubelet's pod cleanup)
    await eventually(async () => expect(await sandboxTraces(uid)).toEqual([]), 30_000);
    await kubectlOk(["-n", NS, "delete", "net-attach-def", "absent"]);
  });

  it("creates and deletes fifty pods with two secondary networks without leaving a reservation or a port", async () => {
    const before = await hostNetworkState();
    const names = Array.from({ length: 50 }, (_, i) => `many-${i}`);
    await kubectlOk(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: names.map((name) => pod(name, "blue,green", undefined, { group: "many" })),
      }),
    );
    const pods = await eventually(async () => {
      const list = JSON.parse(
        await kubectlOk(["-n", NS, "get", "pods", "-l", "group=many", "-o", "json"]),
      ) as { items: PodJson[] };
      const ready = list.items.filter(
        (p) => p.status.phase === "Running" && p.metadata.annotations?.[STATUS_ANNOTATION],
      );
      if (ready.length < names.length) throw new Error(`${ready.length} of ${names.length} pods running`);
      return ready;
    }, 300_000);
    const secondary = pods.flatMap((p) => networkStatus(p).filter((s) => s.interface !== "eth0"));
    expect(secondary).toHaveLength(2 * names.length);
    const blue = secondary.filter((s) => s.interface === "net1").flatMap((s) => s.ips ?? []);
    expect(new Set(blue).size).toBe(names.length);
    expect(blue.every((ip) => inRange(ip, BLUE_RANGE))).toBe(true);
    // one reservation per pod on each segment, in host-local's shared folder
    const uids = new Set(pods.map((p) => p.metadata.uid));
    const owners = await Promise.all(
      (await secondaryLeases()).map(async (lease) => (await readFile(lease, "utf8")).split(/\r?\n/)[0]),
    );
    expect(owners.filter((owner) => owner !== undefined && uids.has(owner))).toHaveLength(2 * names.length);

    await kubectlOk(["-n", NS, "delete", "pods", "-l", "group=many", "--wait=true", "--timeout=300s"]);
    await eventually(async () => expect(await hostNetworkState()).toEqual(before), 60_000);
    for (const p of pods) expect(await sandboxTraces(p.metadata.uid)).toEqual([]);
  }, 600_000);
});

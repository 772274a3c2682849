import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "./fake-kube-client.js";
import { leaseSchema } from "./k8s-types.js";
import { silentLogger } from "./logger.js";
import { LEASE_NAMESPACE, NodeLease, microTime } from "./node-lease.js";
import { NodeRegistrar, STATUS_REPORT_PERIOD_MS } from "./node-registrar.js";
import { nodeAllocatable, nodeCapacity, type HostFacts, type NodeIdentity } from "./node-object.js";

const host: HostFacts = {
  size: { cpus: 8, memoryBytes: 16 * 1024 ** 3, maxPods: 110 },
  diskBytes: 100 * 1024 ** 3,
  machineID: "m1",
  bootID: "b1",
  systemUUID: "s1",
  kernelVersion: "6.1.0",
  osImage: "Debian GNU/Linux 12 (bookworm)",
  arch: "x64",
};
const identity: NodeIdentity = {
  name: "node01",
  internalIP: "10.244.1.1",
  podCIDR: "10.244.1.0/24",
  kubeletVersion: "v1.34.1",
  runtimeVersion: "kubevirt-ts://0.1.0",
};

function registrar(
  client: FakeKubeClient,
  clock: { t: number },
  extended = { capacity: {}, allocatable: {} },
) {
  return new NodeRegistrar(
    client,
    { identity, hostFacts: () => host, extendedResources: () => extended, now: () => new Date(clock.t) },
    silentLogger(),
  );
}

describe("node object", () => {
  it("reports kubelet's quantities: memory in Ki, allocatable minus the eviction thresholds", () => {
    expect(nodeCapacity(host)).toMatchObject({
      cpu: "8",
      memory: "16777216Ki",
      pods: "110",
      "ephemeral-storage": "104857600Ki",
    });
    expect(nodeAllocatable(host)).toMatchObject({
      memory: `${16777216 - 102400}Ki`,
      "ephemeral-storage": "96636764160",
    });
  });

  it("reports the declared size, whatever the machine has", () => {
    const declared = { ...host, size: { cpus: 16, memoryBytes: 32 * 1024 ** 3, maxPods: 250 } };
    expect(nodeCapacity(declared)).toMatchObject({ cpu: "16", memory: "33554432Ki", pods: "250" });
    expect(nodeAllocatable(declared)).toMatchObject({
      cpu: "16",
      memory: `${33554432 - 102400}Ki`,
      pods: "250",
    });
  });
});

describe("NodeRegistrar", () => {
  it("creates the Node with labels, pod CIDR, addresses, node info, conditions and the kubelet port", async () => {
    const client = new FakeKubeClient();
    await registrar(client, { t: Date.parse("2025-01-01T00:00:00Z") }).register();
    const node = client.node("node01");
    expect(node).toMatchObject({
      metadata: {
        labels: {
          "kubernetes.io/hostname": "node01",
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          "beta.kubernetes.io/os": "linux",
          "beta.kubernetes.io/arch": "amd64",
        },
      },
      spec: { podCIDR: "10.244.1.0/24", podCIDRs: ["10.244.1.0/24"] },
      status: {
        addresses: [
          { type: "InternalIP", address: "10.244.1.1" },
          { type: "Hostname", address: "node01" },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          kubeletVersion: "v1.34.1",
          containerRuntimeVersion: "kubevirt-ts://0.1.0",
          operatingSystem: "linux",
          architecture: "amd64",
        },
        conditions: [
          { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory" },
          { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure" },
          { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID" },
          {
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "kubelet is posting ready status",
            lastHeartbeatTime: "2025-01-01T00:00:00Z",
          },
        ],
      },
    });
  });

  it("adopts an existing Node: fixes labels and fills an empty pod CIDR", async () => {
    const client = new FakeKubeClient();
    client.putNode({ metadata: { name: "node01", uid: "u", labels: { keep: "me" } }, spec: {} });
    await registrar(client, { t: 0 }).register();
    expect(client.node("node01")).toMatchObject({
      metadata: { labels: { keep: "me", "kubernetes.io/hostname": "node01" } },
      spec: { podCIDR: "10.244.1.0/24", podCIDRs: ["10.244.1.0/24"] },
    });
  });

  it("writes status only on change or when the report period has passed", async () => {
    const client = new FakeKubeClient();
    const clock = { t: Date.parse("2025-01-01T00:00:00Z") };
    const extended = { capacity: {} as Record<string, string>, allocatable: {} as Record<string, string> };
    const r = registrar(client, clock, extended);
    await r.register();
    const writes = () => client.writes("patch-status", "node/node01").length;
    expect(writes()).toBe(1);

    clock.t += 10_000;
    expect(await r.syncStatus()).toBe(false);
    extended.capacity = { "devices.kubevirt.io/tun": "110" };
    extended.allocatable = { "devices.kubevirt.io/tun": "110" };
    expect(await r.syncStatus()).toBe(true);
    expect(client.node("node01")).toMatchObject({
      status: { capacity: { "devices.kubevirt.io/tun": "110" } },
    });

    clock.t += STATUS_REPORT_PERIOD_MS;
    expect(await r.syncStatus()).toBe(true);
    expect(writes()).toBe(3);
  });

  it("keeps a condition's transition time while its status is unchanged", async () => {
    const client = new FakeKubeClient();
    const clock = { t: Date.parse("2025-01-01T00:00:00Z") };
    const r = registrar(client, clock);
    await r.register();
    clock.t += STATUS_REPORT_PERIOD_MS;
    await r.syncStatus();
    const ready = {
      type: "Ready",
      lastTransitionTime: "2025-01-01T00:00:00Z",
      lastHeartbeatTime: "2025-01-01T00:05:00Z",
    };
    expect(client.node("node01")).toMatchObject({ status: { conditions: [{}, {}, {}, ready] } });
  });
});

describe("NodeLease", () => {
  it("formats renewTime as a MicroTime", () => {
    expect(microTime(new Date("2025-01-01T00:00:01.234Z"))).toBe("2025-01-01T00:00:01.234000Z");
  });

  it("creates the lease owned by the Node, then renews it in place, recovering from a conflict", async () => {
    const client = new FakeKubeClient();
    let t = Date.parse("2025-01-01T00:00:00Z");
    const lease = new NodeLease(
      client,
      "node01",
      () => "node-uid",
      silentLogger(),
      () => new Date(t),
    );
    await lease.renew();
    const stored = () => leaseSchema.parse(client.lease(LEASE_NAMESPACE, "node01"));
    expect(stored().spec).toEqual({
      holderIdentity: "node01",
      leaseDurationSeconds: 40,
      renewTime: "2025-01-01T00:00:00.000000Z",
    });
    expect(stored().metadata).toMatchObject({
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node01", uid: "node-uid" }],
    });

    t += 10_000;
    await lease.renew();
    expect(stored().spec?.renewTime).toBe("2025-01-01T00:00:10.000000Z");

    // Someone else bumps the lease: the next renewal conflicts, re-reads and still succeeds.
    client.putLease({
      ...stored(),
      metadata: { ...stored().metadata, resourceVersion: "999" },
    });
    t += 10_000;
    await lease.renew();
    expect(stored().spec?.renewTime).toBe("2025-01-01T00:00:20.000000Z");
    expect(client.writes("create", `lease/${LEASE_NAMESPACE}/node01`)).toHaveLength(1);
  });
});

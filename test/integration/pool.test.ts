// The pool controller in this process (inside a whole virt-controller) against the real kube-apiserver: a
// VirtualMachinePool gets its VMs `<pool>-<index>`, `kubectl scale vmpool` moves it up and down through
// the CRD's scale subresource, the printer columns show it, the names come back after a scale to 0, a
// controller killed in the middle of scaling up leaves no duplicate behind, and a deleted pool lets go of
// its VMs. The template's VMs are Halted: no VMI is started, which is all the pool needs.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachinePool } from "../../pkg/api/generated/v1beta1.js";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import {
  controllerRevisionsGVR,
  toStored,
  virtualMachinePoolsGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMPool,
} from "../../pkg/controller/resources.js";
import type { KubeObject } from "../../pkg/controller/object.js";
import { installCRDs, scaleOf, eventually, kubeConfig, kubectl, kubectlOk as run } from "./harness.js";
import { ControllerReplicas } from "./controller-replicas.js";

const suffix = randomBytes(3).toString("hex");
const namespace = `vmpool-it-${suffix}`;
const neededCrds = [
  "virtualmachines.kubevirt.io",
  "virtualmachineinstances.kubevirt.io",
  "virtualmachinepools.pool.kubevirt.io",
  "kubevirts.kubevirt.io",
];
const label = "kubevirt.io/vmpool";
const revisionLabel = "kubevirt.io/vm-pool-revision-name";
const finalizer = "pool.kubevirt.io/finalizer";

let client: KubeClient;
let pools: ResourceClient<StoredVMPool>;
let vms: ResourceClient<StoredVM>;
let revisions: ResourceClient<KubeObject>;
const replicas = new ControllerReplicas(() => client, namespace);

function pool(name: string, replicas: number): StoredVMPool {
  return toStored<VirtualMachinePool>({
    apiVersion: "pool.kubevirt.io/v1beta1",
    kind: "VirtualMachinePool",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { [label]: name } },
      virtualMachineTemplate: {
        metadata: { labels: { [label]: name } },
        spec: {
          runStrategy: "Halted",
          template: {
            metadata: { labels: { [label]: name } },
            spec: {
              domain: {
                devices: { disks: [{ name: "containerdisk", disk: { bus: "virtio" } }] },
                memory: { guest: "128Mi" },
              },
              terminationGracePeriodSeconds: 0,
              volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
            },
          },
        },
      },
    },
  });
}

/** The pool's VMs that are not being deleted, by name. */
async function aliveVMs(name: string): Promise<StoredVM[]> {
  const { items } = await vms.list(namespace, { labelSelector: `${label}=${name}` });
  return items
    .filter((vm) => !vm.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

/** Waits until exactly `count` VMs are alive, none is going away, and the status says so. */
async function converged(name: string, count: number): Promise<string[]> {
  return eventually(async () => {
    const { items } = await vms.list(namespace, { labelSelector: `${label}=${name}` });
    const alive = await aliveVMs(name);
    if (alive.length !== count || items.length !== count) {
      throw new Error(`${alive.length} VMs alive (${items.length} in all), want ${count}`);
    }
    const current = await pools.get(namespace, name);
    if ((current.status?.replicas ?? 0) !== count)
      throw new Error(`status.replicas ${current.status?.replicas}`);
    return alive.map((vm) => vm.metadata?.name ?? "");
  });
}

const scaleOfThe = (name: string) => scaleOf(client, virtualMachinePoolsGVR, namespace, name);

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  pools = client.resource<StoredVMPool>(virtualMachinePoolsGVR);
  vms = client.resource<StoredVM>(virtualMachinesGVR);
  revisions = client.resource<KubeObject>(controllerRevisionsGVR);
  await installCRDs(neededCrds);
  await run(["create", "namespace", namespace]);
}, 240_000);

afterAll(async () => {
  const leader = replicas.start("virt-controller-cleanup");
  // Deleted, the pools let go of their VMs' finalizers and of their own.
  for (const item of (await pools.list(namespace).catch(() => ({ items: [] }))).items) {
    await pools.delete(namespace, item.metadata?.name ?? "").catch(() => undefined);
  }
  await eventually(async () => {
    if ((await pools.list(namespace)).items.length > 0) throw new Error("pools left");
  }, 60_000).catch(() => undefined);
  // Whether or not a garbage collector runs here: the VM controller lets each deleted VM go.
  for (const vm of (await vms.list(namespace).catch(() => ({ items: [] }))).items) {
    await vms.delete(namespace, vm.metadata?.name ?? "").catch(() => undefined);
  }
  await eventually(async () => {
    if ((await vms.list(namespace)).items.length > 0) throw new Error("VMs left");
  }, 60_000).catch(() => undefined);
  await replicas.stop(leader);
  await replicas.stopAll();
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
}, 120_000);

describe("the VM pool controller against a real apiserver", () => {
  it("creates <pool>-0.. from the template, owned by the pool, labelled with its revision, and reports them", async () => {
    const replica = replicas.start("virt-controller-pool-a");
    const created = await pools.create(pool("web", 2));
    expect(await converged("web", 2)).toEqual(["web-0", "web-1"]);
    for (const vm of await aliveVMs("web")) {
      expect(vm.metadata?.ownerReferences).toEqual([
        {
          apiVersion: "pool.kubevirt.io/v1beta1",
          kind: "VirtualMachinePool",
          name: "web",
          uid: created.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(vm.metadata?.finalizers).toContain(finalizer);
      expect(vm.metadata?.labels?.[revisionLabel]).toBe("web-1");
      expect(vm.spec.template.metadata?.labels?.[revisionLabel]).toBe("web-1");
    }
    const current = await pools.get(namespace, "web");
    expect(current.metadata?.finalizers).toEqual([finalizer]);
    expect(current.status?.labelSelector).toBe(`${label}=web`);
    await revisions.get(namespace, "web-1");
    await replicas.stop(replica);
  });

  it("kubectl scale vmpool moves it up and down through the scale subresource; names come back after 0", async () => {
    const replica = replicas.start("virt-controller-pool-b");
    const scaled = await run(["scale", "vmpool", "web", "-n", namespace, "--replicas=4"]);
    expect(scaled.trim()).toBe("virtualmachinepool.pool.kubevirt.io/web scaled");
    expect(await converged("web", 4)).toEqual(["web-0", "web-1", "web-2", "web-3"]);
    expect(await scaleOfThe("web")).toMatchObject({
      spec: { replicas: 4 },
      status: { replicas: 4, selector: `${label}=web` },
    });
    const table = await run(["get", "vmpool", "web", "-n", namespace]);
    expect(table.split("\n")[0]?.split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    // Halted VMs are never Ready: READY has no value to show.
    expect(table.split("\n")[1]?.split(/\s+/).slice(0, 3)).toEqual(["web", "4", "4"]);

    // Upstream's default scale-in order is random; DescendingOrder keeps the lowest indexes.
    await run([
      "patch",
      "vmpool",
      "web",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({
        spec: { scaleInStrategy: { proactive: { selectionPolicy: { sortPolicy: "DescendingOrder" } } } },
      }),
    ]);
    await run(["scale", "vmpool", "web", "-n", namespace, "--replicas=1"]);
    expect(await converged("web", 1)).toEqual(["web-0"]);
    expect(await scaleOfThe("web")).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1 } });

    await run(["scale", "vmpool", "web", "-n", namespace, "--replicas=0"]);
    await converged("web", 0);
    await run(["scale", "vmpool", "web", "-n", namespace, "--replicas=2"]);
    expect(await converged("web", 2)).toEqual(["web-0", "web-1"]);
    await replicas.stop(replica);
  });

  it("a controller killed while scaling up leaves no duplicate once another one takes over", async () => {
    const first = replicas.start("virt-controller-pool-c");
    await pools.create(pool("burst", 1));
    await converged("burst", 1);
    await run(["scale", "vmpool", "burst", "-n", namespace, "--replicas=5"]);
    await eventually(async () => {
      if ((await aliveVMs("burst")).length < 2) throw new Error("scale-up not started");
    });
    await replicas.stop(first);

    const second = replicas.start("virt-controller-pool-d");
    expect(await converged("burst", 5)).toEqual(["burst-0", "burst-1", "burst-2", "burst-3", "burst-4"]);
    // Give a duplicate every chance to appear before counting again.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await aliveVMs("burst")).toHaveLength(5);
    await replicas.stop(second);
  });

  it("a deleted pool lets go of its VMs' finalizers and of its own", async () => {
    const replica = replicas.start("virt-controller-pool-e");
    await pools.create(pool("gone", 2));
    await converged("gone", 2);
    await pools.delete(namespace, "gone");
    await eventually(async () => {
      const left = await pools.list(namespace);
      if (left.items.some((item) => item.metadata?.name === "gone")) throw new Error("pool still there");
      const { items } = await vms.list(namespace, { labelSelector: `${label}=gone` });
      if (items.some((vm) => vm.metadata?.finalizers?.includes(finalizer))) throw new Error("finalizer left");
    });
    await replicas.stop(replica);
  });
});

// The replica set controller in this process (inside a whole virt-controller) against the real
// kube-apiserver: a VirtualMachineInstanceReplicaSet gets its VMIs, `kubectl scale` moves it up and down
// through the CRD's scale subresource, the printer columns show it, and a controller killed in the middle
// of scaling up leaves no duplicate behind. No node agent runs here: VMIs never start, which is all the
// replica set needs (they are alive until they finish or go).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import {
  toStored,
  virtualMachineInstanceReplicaSetsGVR,
  virtualMachineInstancesGVR,
  type StoredVMI,
  type StoredVMIRS,
} from "../../pkg/controller/resources.js";
import { installCRDs, scaleOf, eventually, kubeConfig, kubectl, kubectlOk as run } from "./harness.js";
import { ControllerReplicas } from "./controller-replicas.js";

const suffix = randomBytes(3).toString("hex");
const namespace = `vmirs-it-${suffix}`;
const neededCrds = [
  "virtualmachines.kubevirt.io",
  "virtualmachineinstances.kubevirt.io",
  "virtualmachineinstancereplicasets.kubevirt.io",
  "kubevirts.kubevirt.io",
];
const label = "kubevirt.io/vmReplicaSet";

let client: KubeClient;
let replicaSets: ResourceClient<StoredVMIRS>;
let vmis: ResourceClient<StoredVMI>;
const replicas = new ControllerReplicas(() => client, namespace);

function replicaSet(name: string, replicas: number): StoredVMIRS {
  return toStored({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceReplicaSet",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { [label]: name } },
      template: {
        metadata: { labels: { [label]: name } },
        spec: {
          domain: {
            devices: {
              disks: [{ name: "containerdisk", disk: { bus: "virtio" } }],
              interfaces: [{ name: "default", masquerade: {} }],
            },
            memory: { guest: "128Mi" },
            resources: { requests: { memory: "128Mi" } },
          },
          networks: [{ name: "default", pod: {} }],
          terminationGracePeriodSeconds: 0,
          volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
        },
      },
    },
  });
}

/** The replica set's VMIs that are not being deleted. */
async function aliveVMIs(name: string): Promise<StoredVMI[]> {
  const { items } = await vmis.list(namespace, { labelSelector: `${label}=${name}` });
  return items.filter((vmi) => !vmi.metadata?.deletionTimestamp);
}

/** Waits until exactly `count` VMIs are alive and the status says so. */
async function converged(name: string, count: number): Promise<StoredVMI[]> {
  return eventually(async () => {
    const alive = await aliveVMIs(name);
    if (alive.length !== count) throw new Error(`${alive.length} VMIs alive, want ${count}`);
    const rs = await replicaSets.get(namespace, name);
    if ((rs.status?.replicas ?? 0) !== count) throw new Error(`status.replicas ${rs.status?.replicas}`);
    return alive;
  });
}

const scaleOfThe = (name: string) => scaleOf(client, virtualMachineInstanceReplicaSetsGVR, namespace, name);

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  replicaSets = client.resource<StoredVMIRS>(virtualMachineInstanceReplicaSetsGVR);
  vmis = client.resource<StoredVMI>(virtualMachineInstancesGVR);
  await installCRDs(neededCrds);
  await run(["create", "namespace", namespace]);
}, 240_000);

afterAll(async () => {
  const leader = replicas.start("virt-controller-cleanup");
  // Scaled to zero, the controllers remove the VMIs, their Pods and their finalizers.
  for (const item of (await replicaSets.list(namespace).catch(() => ({ items: [] }))).items) {
    const name = item.metadata?.name ?? "";
    await replicaSets.patch(namespace, name, "merge", { spec: { replicas: 0 } }).catch(() => undefined);
  }
  await eventually(async () => {
    if ((await vmis.list(namespace)).items.length > 0) throw new Error("VMIs left");
  }, 60_000).catch(() => undefined);
  await replicas.stop(leader);
  await replicas.stopAll();
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
}, 120_000);

describe("the VMI replica set controller against a real apiserver", () => {
  it("creates the replicas from the template, owned by the replica set, and reports them", async () => {
    const replica = replicas.start("virt-controller-rs-a");
    const created = await replicaSets.create(replicaSet("web", 2));
    const alive = await converged("web", 2);
    for (const vmi of alive) {
      expect(vmi.metadata?.name).toMatch(/^web[a-z0-9]{5}$/);
      expect(vmi.metadata?.ownerReferences).toEqual([
        {
          apiVersion: "kubevirt.io/v1",
          kind: "VirtualMachineInstanceReplicaSet",
          name: "web",
          uid: created.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    const rs = await replicaSets.get(namespace, "web");
    expect(rs.status?.labelSelector).toBe(`${label}=web`);
    expect(rs.status?.readyReplicas).toBeUndefined();
    await replicas.stop(replica);
  });

  it("kubectl scale moves it up and down through the scale subresource", async () => {
    const replica = replicas.start("virt-controller-rs-b");
    await run(["scale", "vmirs", "web", "-n", namespace, "--replicas=4"]);
    await converged("web", 4);
    expect(await scaleOfThe("web")).toMatchObject({
      spec: { replicas: 4 },
      status: { replicas: 4, selector: `${label}=web` },
    });
    const table = await run(["get", "vmirs", "web", "-n", namespace]);
    expect(table.split("\n")[0]?.split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    // No VMI gets ready without nodes: READY has no value to show.
    expect(table.split("\n")[1]?.split(/\s+/).slice(0, 3)).toEqual(["web", "4", "4"]);

    await run(["scale", "vmirs", "web", "-n", namespace, "--replicas=1"]);
    await converged("web", 1);
    expect(await scaleOfThe("web")).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1 } });
    await replicas.stop(replica);
  });

  it("a controller killed while scaling from 0 to 20 leaves exactly 20 once another one takes over", async () => {
    const first = replicas.start("virt-controller-rs-c");
    await replicaSets.create(replicaSet("burst", 0));
    await converged("burst", 0);
    await run(["scale", "vmirs", "burst", "-n", namespace, "--replicas=20"]);
    await eventually(async () => {
      if ((await aliveVMIs("burst")).length < 2) throw new Error("scale-up not started");
    });
    await replicas.stop(first);

    const second = replicas.start("virt-controller-rs-d");
    await converged("burst", 20);
    // Give a duplicate every chance to appear before counting again.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await aliveVMIs("burst")).toHaveLength(20);
    await replicas.stop(second);
  });
});

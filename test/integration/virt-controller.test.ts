// virt-controller in this process against the real kube-apiserver: a VM with runStrategy Always gets its
// VMI and launcher Pod, stopping removes both, and a restart survives the controller being killed midway
// without duplicates. No node agent runs here, so Pods stay unscheduled: this checks what the
// controller owns (objects, specs, statuses), not the guest.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import { coreGVR } from "../../pkg/controller/gvr.js";
import {
  toStored,
  virtualMachineInstancesGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
} from "../../pkg/controller/resources.js";
import type { Pod } from "../../pkg/api/core/v1/pod.js";
import { installCRDs, eventually, kubeConfig, kubectl, kubectlOk as run } from "./harness.js";
import { ControllerReplicas } from "./controller-replicas.js";

const suffix = randomBytes(3).toString("hex");
const namespace = `virt-controller-it-${suffix}`;
const neededCrds = [
  "virtualmachines.kubevirt.io",
  "virtualmachineinstances.kubevirt.io",
  "kubevirts.kubevirt.io",
];

let client: KubeClient;
let vms: ResourceClient<StoredVM>;
let vmis: ResourceClient<StoredVMI>;
let pods: ResourceClient<Pod>;
const replicas = new ControllerReplicas(() => client, namespace);

function vm(name: string, runStrategy: string): StoredVM {
  return toStored({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name, namespace },
    spec: {
      runStrategy,
      template: {
        metadata: { labels: { "kubevirt.io/vm": name } },
        spec: {
          domain: {
            cpu: { cores: 2 },
            devices: {
              disks: [{ name: "containerdisk", disk: { bus: "virtio" } }],
              interfaces: [{ name: "default", masquerade: {} }],
            },
            firmware: { uuid: "6f2a7f54-2c1a-4c8e-9a53-0d7c93b57c12" },
            memory: { guest: "128Mi" },
          },
          networks: [{ name: "default", pod: {} }],
          volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
        },
      },
    },
  });
}

const launcherPods = async (vmiUID: string): Promise<Pod[]> =>
  (await pods.list(namespace, { labelSelector: `kubevirt.io/created-by=${vmiUID}` })).items;

/** The VM's VMI once it exists (and is not the one with `notUID`). */
async function vmiOf(name: string, notUID?: string): Promise<StoredVMI> {
  return eventually(async () => {
    const found = await vmis.get(namespace, name);
    if (notUID && found.metadata?.uid === notUID) throw new Error("still the old VMI");
    return found;
  });
}

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  vms = client.resource<StoredVM>(virtualMachinesGVR);
  vmis = client.resource<StoredVMI>(virtualMachineInstancesGVR);
  pods = client.resource<Pod>(coreGVR.pods);
  await installCRDs(neededCrds);
  await run(["create", "namespace", namespace]);
}, 240_000);

afterAll(async () => {
  const leader = replicas.start("virt-controller-cleanup");
  // Halting every VM lets the controllers remove VMIs, Pods and their own finalizers.
  for (const item of (await vms.list(namespace).catch(() => ({ items: [] }))).items) {
    await vms
      .patch(namespace, item.metadata?.name ?? "", "merge", { spec: { runStrategy: "Halted" } })
      .catch(() => undefined);
    await vms.delete(namespace, item.metadata?.name ?? "").catch(() => undefined);
  }
  await eventually(async () => {
    if ((await vms.list(namespace)).items.length > 0) throw new Error("VMs left");
  }, 30_000).catch(() => undefined);
  await replicas.stop(leader);
  await replicas.stopAll();
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
}, 120_000);

describe("virt-controller against a real apiserver", () => {
  it("runStrategy Always: the VMI is created from the template and gets its launcher Pod", async () => {
    const replica = replicas.start("virt-controller-it-a");
    const created = await vms.create(vm("always", "Always"));
    const vmi = await vmiOf("always");
    expect(vmi.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: "VirtualMachine",
        name: "always",
        uid: created.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    expect(vmi.metadata?.labels).toEqual({ "kubevirt.io/vm": "always" });

    const [pod, ...extra] = await eventually(async () => {
      const found = await launcherPods(vmi.metadata?.uid ?? "");
      if (found.length === 0) throw new Error("no launcher Pod yet");
      return found;
    });
    expect(extra).toEqual([]);
    expect(pod?.metadata.name).toMatch(/^virt-launcher-always-[a-z0-9]{5}$/);
    expect(pod?.metadata.labels).toMatchObject({
      "kubevirt.io": "virt-launcher",
      "kubevirt.io/created-by": vmi.metadata?.uid,
      "vm.kubevirt.io/name": "always",
    });
    expect(pod?.metadata.annotations).toMatchObject({
      "kubevirt.io/domain": "always",
      "kubectl.kubernetes.io/default-container": "compute",
    });
    expect(pod?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "VirtualMachineInstance", uid: vmi.metadata?.uid, controller: true }),
    ]);
    expect(pod?.spec.nodeSelector).toMatchObject({ "kubevirt.io/schedulable": "true" });
    const compute = pod?.spec.containers[0];
    expect(compute?.command).toEqual(["/usr/bin/virt-launcher-monitor"]);
    expect(compute?.args).toEqual(
      expect.arrayContaining(["--name", "always", "--uid", vmi.metadata?.uid, "--namespace", namespace]),
    );
    // The apiserver copies device plugin limits into requests.
    expect(compute?.resources?.requests).toMatchObject({ cpu: "200m", "devices.kubevirt.io/tun": "1" });
    expect(pod?.spec.volumes?.map((volume) => volume.name)).toEqual(
      expect.arrayContaining([
        "private",
        "public",
        "sockets",
        "virt-bin-share-dir",
        "libvirt-runtime",
        "ephemeral-disks",
        "container-disks",
        "hotplug-disks",
      ]),
    );
    expect(pod?.spec.containers.map((container) => container.name)).toEqual([
      "compute",
      "volumecontainerdisk",
    ]);

    const phases = await eventually(async () => {
      const current = await vmis.get(namespace, "always");
      if (current.status?.phase !== "Scheduling") throw new Error(`phase ${current.status?.phase}`);
      return current.status;
    });
    expect(phases?.activePods).toEqual({ [pod?.metadata.uid ?? ""]: "" });
    const status = await eventually(async () => {
      const current = await vms.get(namespace, "always");
      if (!current.status?.created) throw new Error("VM not reported created yet");
      return current.status;
    });
    // Without nodes the scheduler cannot place the Pod: Starting, or ErrorUnschedulable once it says so.
    expect(["Starting", "ErrorUnschedulable"]).toContain(status.printableStatus);
    expect(status.runStrategy).toBe("Always");
    expect(status.ready).toBeUndefined();
    await replicas.stop(replica);
  });

  it("stopping deletes the VMI and its Pod and reports Stopped", async () => {
    const replica = replicas.start("virt-controller-it-b");
    const vmi = await vmiOf("always");
    await vms.patch(namespace, "always", "merge", { spec: { runStrategy: "Halted" } });
    await eventually(async () => {
      const found = await vmis.get(namespace, "always").catch(() => undefined);
      if (found) throw new Error("VMI still there");
    });
    expect(await launcherPods(vmi.metadata?.uid ?? "")).toEqual([]);
    const status = await eventually(async () => {
      const current = await vms.get(namespace, "always");
      if (current.status?.printableStatus !== "Stopped")
        throw new Error(`status ${current.status?.printableStatus}`);
      return current.status;
    });
    expect(status.runStrategy).toBe("Halted");
    expect(status.created).toBeUndefined();
    await replicas.stop(replica);
  });

  it("a restart survives the controller being killed midway, without duplicates", async () => {
    const first = replicas.start("virt-controller-it-c");
    await vms.create(vm("restarted", "Always"));
    const old = await vmiOf("restarted");
    await eventually(async () => {
      if ((await launcherPods(old.metadata?.uid ?? "")).length !== 1) throw new Error("no launcher Pod yet");
    });
    // What `virtctl restart` asks through the restart subresource.
    await vms.patchStatus(namespace, "restarted", "merge", {
      status: { stateChangeRequests: [{ action: "Stop", uid: old.metadata?.uid }, { action: "Start" }] },
    });
    // Kill the controller the moment the replacement VMI exists, before it may have made its Pod.
    const replacement = await vmiOf("restarted", old.metadata?.uid);
    await replicas.stop(first);

    const second = replicas.start("virt-controller-it-d");
    await eventually(async () => {
      const current = await vms.get(namespace, "restarted");
      if ((current.status?.stateChangeRequests ?? []).length > 0) throw new Error("requests pending");
      if ((await launcherPods(replacement.metadata?.uid ?? "")).length !== 1)
        throw new Error("no launcher Pod yet");
    });
    // Give a duplicate every chance to appear before counting.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await vmis.get(namespace, "restarted")).metadata?.uid).toBe(replacement.metadata?.uid);
    expect(await launcherPods(replacement.metadata?.uid ?? "")).toHaveLength(1);
    expect(await launcherPods(old.metadata?.uid ?? "")).toEqual([]);
    await replicas.stop(second);
  });
});

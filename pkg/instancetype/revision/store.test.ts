import { describe, expect, it } from "vitest";
import { KubeClient } from "../../controller/client.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../controller/resources.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import type { InstancetypeControllerRevision } from "../compatibility/compatibility.js";
import { clientSources } from "../find/client.js";
import { clusterInstancetypesGVR, preferencesGVR } from "../find/resources.js";
import { RevisionStore } from "./store.js";

const vmTable = tableOf(virtualMachinesGVR);
const revisionTable = tableOf(controllerRevisionsGVR);

function setup(vmSpec: Partial<StoredVM["spec"]> = {}) {
  const server = new FakeApiServer();
  server.seed(tableOf(clusterInstancetypesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachineClusterInstancetype",
    metadata: { name: "u1", uid: "it-uid", generation: 2, labels: { a: "b" }, annotations: { c: "d" } },
    spec: { cpu: { guest: 2 }, memory: { guest: "1Gi" } },
  });
  server.seed(tableOf(preferencesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachinePreference",
    metadata: { name: "fedora", namespace: "ns", uid: "pref-uid", generation: 1 },
    spec: { devices: { preferredDiskBus: "virtio" } },
  });
  const vm = server.seed<StoredVM>(vmTable, {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm", namespace: "ns", uid: "vm-uid", generation: 1 },
    spec: {
      template: { spec: { domain: { devices: {} } } },
      instancetype: { name: "u1" },
      preference: { name: "fedora", kind: "VirtualMachinePreference" },
      ...vmSpec,
    },
  });
  const client = new KubeClient(server);
  return { server, vm, store: new RevisionStore(client, clientSources(client)) };
}

describe("instancetype revision store", () => {
  it("stores both copies with upstream's names, labels and owner, and records them in the status", async () => {
    const { server, vm, store } = setup();
    const stored = await store.store(vm);
    const revision = server.get<InstancetypeControllerRevision>(
      revisionTable,
      "ns",
      "vm-u1-v1beta1-it-uid-2",
    );
    expect(revision?.metadata?.labels).toEqual({
      "instancetype.kubevirt.io/object-generation": "2",
      "instancetype.kubevirt.io/object-kind": "VirtualMachineClusterInstancetype",
      "instancetype.kubevirt.io/object-name": "u1",
      "instancetype.kubevirt.io/object-uid": "it-uid",
      "instancetype.kubevirt.io/object-version": "v1beta1",
    });
    expect(revision?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachine",
        name: "vm",
        uid: "vm-uid",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(revision?.data).toEqual({
      apiVersion: "instancetype.kubevirt.io/v1beta1",
      kind: "VirtualMachineClusterInstancetype",
      // As upstream, only labels, annotations, finalizers, owners and managed fields are dropped.
      metadata: {
        name: "u1",
        uid: "it-uid",
        generation: 2,
        resourceVersion: "2",
        creationTimestamp: "2026-01-01T00:00:00Z",
      },
      spec: { cpu: { guest: 2 }, memory: { guest: "1Gi" } },
    });
    expect(server.get(revisionTable, "ns", "vm-fedora-v1beta1-pref-uid-1")).toBeDefined();
    expect(stored.status).toEqual({
      instancetypeRef: { name: "u1", controllerRevisionRef: { name: "vm-u1-v1beta1-it-uid-2" } },
      preferenceRef: {
        name: "fedora",
        kind: "VirtualMachinePreference",
        controllerRevisionRef: { name: "vm-fedora-v1beta1-pref-uid-1" },
      },
    });
    // Once recorded, nothing more is written.
    const writes = server.writes.length;
    await store.store(stored);
    expect(server.writes.length).toBe(writes);
  });

  it("records a pinned revisionName as it is", async () => {
    const { server, vm, store } = setup({
      instancetype: { name: "u1", revisionName: "pinned" },
      preference: undefined,
    });
    const stored = await store.store(vm);
    expect(stored.status?.instancetypeRef).toEqual({ name: "u1", controllerRevisionRef: { name: "pinned" } });
    expect(server.list(revisionTable)).toEqual([]);
  });

  it("takes an existing revision with the same spec and refuses one with other data", async () => {
    const { server, vm, store } = setup({ preference: undefined });
    await store.store(vm);
    const again = server.get<StoredVM>(vmTable, "ns", "vm")!;
    delete again.status;
    await expect(store.store(again)).resolves.toBeDefined();
    server.mutate<InstancetypeControllerRevision>(
      revisionTable,
      "ns",
      "vm-u1-v1beta1-it-uid-2",
      (revision) => {
        (revision.data as { spec: unknown }).spec = { cpu: { guest: 4 }, memory: { guest: "1Gi" } };
      },
    );
    await expect(store.store(again)).rejects.toThrow(
      "found existing ControllerRevision with unexpected data: vm-u1-v1beta1-it-uid-2",
    );
  });

  it("stores nothing for a template that conflicts with the instance type", async () => {
    const { server, vm, store } = setup({
      template: { spec: { domain: { devices: {}, cpu: { cores: 2 } } } },
      preference: undefined,
    });
    await expect(store.store(vm)).rejects.toThrow(
      "VM field(s) spec.template.spec.domain.cpu.cores conflicts with selected instance type",
    );
    expect(server.list(revisionTable)).toEqual([]);
  });

  it("passes a missing instance type's NotFound through", async () => {
    const { vm, store } = setup({ instancetype: { name: "missing" }, preference: undefined });
    await expect(store.store(vm)).rejects.toThrow('"missing" not found');
  });
});

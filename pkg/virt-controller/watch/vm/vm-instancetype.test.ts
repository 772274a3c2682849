import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { controllerRevisionsGVR, type StoredVM, type StoredVMI } from "../../../controller/resources.js";
import type { InstancetypeControllerRevision } from "../../../instancetype/compatibility/compatibility.js";
import type { ControllerRevision } from "./vm-revision.js";
import { FakeApiServer, tableOf } from "../../../controller/testing/fake-apiserver.js";
import { KubeClient } from "../../../controller/client.js";
import { clusterWith } from "../../../defaults/testing.js";
import { InstancetypeVMHandler } from "../../../instancetype/controller/vm/controller.js";
import { clientSources } from "../../../instancetype/find/client.js";
import { clusterInstancetypesGVR, clusterPreferencesGVR } from "../../../instancetype/find/resources.js";
import {
  startControllerEnv,
  syncUntilStable as syncUntil,
  Tables,
  vmFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";

// The VM controller with instance types and preferences, against the in-memory apiserver.

let env: ControllerEnv;
beforeEach(async () => {
  env = await startControllerEnv();
});
afterEach(() => env.stop());

const key = "default/testvm";
const vm = () => env.server.get<StoredVM>(Tables.vms, "default", "testvm");
const vmi = () => env.server.get<StoredVMI>(Tables.vmis, "default", "testvm");

function seedKinds() {
  env.server.seed(tableOf(clusterInstancetypesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachineClusterInstancetype",
    metadata: { name: "u1.small", uid: "it-uid", generation: 1 },
    spec: { cpu: { guest: 2 }, memory: { guest: "2Gi" } },
  });
  env.server.seed(tableOf(clusterPreferencesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachineClusterPreference",
    metadata: { name: "fedora", uid: "pref-uid", generation: 3 },
    spec: { cpu: { preferredCPUTopology: "cores" }, devices: { preferredDiskBus: "virtio" } },
  });
}

async function seedVM(spec: Partial<StoredVM["spec"]>): Promise<void> {
  const fixture = vmFixture("testvm", spec);
  // The instance type owns the guest's size.
  delete fixture.spec.template.spec?.domain.resources;
  delete fixture.spec.template.spec?.domain.memory;
  env.server.seed(Tables.vms, fixture);
  await env.server.settle();
}

describe("VMs with an instance type and a preference", () => {
  it("store both in ControllerRevisions, record them in the status and start the expanded VMI", async () => {
    seedKinds();
    await seedVM({
      runStrategy: "Always",
      instancetype: { name: "u1.small" },
      preference: { name: "fedora" },
    });
    await syncUntil(env, "vm", key);
    const uid = vm()?.metadata?.uid ?? "";
    const itRevision = `testvm-u1.small-v1beta1-it-uid-1`;
    const prefRevision = `testvm-fedora-v1beta1-pref-uid-3`;
    expect(vm()?.status?.instancetypeRef).toEqual({
      name: "u1.small",
      controllerRevisionRef: { name: itRevision },
    });
    expect(vm()?.status?.preferenceRef).toEqual({
      name: "fedora",
      controllerRevisionRef: { name: prefRevision },
    });
    const revision = env.server.get<InstancetypeControllerRevision>(
      tableOf(controllerRevisionsGVR),
      "default",
      itRevision,
    );
    expect(revision?.metadata?.ownerReferences?.[0]?.uid).toBe(uid);
    const started = vmi();
    expect(started?.spec.domain.cpu).toMatchObject({ sockets: 1, cores: 2, threads: 1 });
    expect(started?.spec.domain.memory?.guest).toBe("2Gi");
    expect(started?.spec.domain.devices.disks?.every((disk) => disk.disk?.bus === "virtio")).toBe(true);
    expect(started?.metadata?.annotations).toMatchObject({
      "kubevirt.io/cluster-instancetype-name": "u1.small",
      "kubevirt.io/cluster-preference-name": "fedora",
    });
  });

  it("keep using the stored copy after the instance type changes", async () => {
    seedKinds();
    await seedVM({ runStrategy: "Halted", instancetype: { name: "u1.small" } });
    await syncUntil(env, "vm", key);
    env.server.mutate(
      tableOf(clusterInstancetypesGVR),
      "",
      "u1.small",
      (obj: InstancetypeControllerRevision & { spec?: unknown }) => {
        obj.spec = { cpu: { guest: 8 }, memory: { guest: "8Gi" } };
      },
    );
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.runStrategy = "Always";
    });
    await env.server.settle();
    await syncUntil(env, "vm", key);
    expect(vmi()?.spec.domain.cpu?.sockets).toBe(2);
    expect(vmi()?.spec.domain.memory?.guest).toBe("2Gi");
  });

  it("pin the start revision to the stored copies and ask for a restart when the reference changes", async () => {
    seedKinds();
    env.server.seed(tableOf(clusterInstancetypesGVR), {
      apiVersion: "instancetype.kubevirt.io/v1beta1",
      kind: "VirtualMachineClusterInstancetype",
      metadata: { name: "u1.large", uid: "large-uid", generation: 1 },
      spec: { cpu: { guest: 4 }, memory: { guest: "4Gi" } },
    });
    await seedVM({
      runStrategy: "Always",
      instancetype: { name: "u1.small" },
      preference: { name: "fedora" },
    });
    await syncUntil(env, "vm", key);
    const uid = vm()?.metadata?.uid ?? "";
    const startRevision = env.server.get<ControllerRevision>(
      tableOf(controllerRevisionsGVR),
      "default",
      `revision-start-vm-${uid}-1`,
    );
    expect(startRevision?.data?.spec?.instancetype).toEqual({
      name: "u1.small",
      revisionName: "testvm-u1.small-v1beta1-it-uid-1",
    });
    expect(startRevision?.data?.spec?.preference?.revisionName).toBe("testvm-fedora-v1beta1-pref-uid-3");
    const restartRequired = () =>
      vm()?.status?.conditions?.find((condition) => condition.type === "RestartRequired");
    // A change of the instance type's own object does not touch the running VMI's pinned copy.
    env.server.mutate(
      tableOf(clusterInstancetypesGVR),
      "",
      "u1.small",
      (obj: InstancetypeControllerRevision & { spec?: unknown }) => {
        obj.spec = { cpu: { guest: 8 }, memory: { guest: "8Gi" } };
      },
    );
    await env.server.settle();
    await syncUntil(env, "vm", key);
    expect(restartRequired()).toBeUndefined();
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.instancetype = { name: "u1.large" };
    });
    await env.server.settle();
    await syncUntil(env, "vm", key);
    expect(vm()?.status?.instancetypeRef?.controllerRevisionRef?.name).toBe(
      "testvm-u1.large-v1beta1-large-uid-1",
    );
    expect(restartRequired()).toMatchObject({
      status: "True",
      message: "a non-live-updatable field was changed in the template spec",
    });
  });

  it("read the instance type and preference from virt-controller's informers, not the apiserver", async () => {
    seedKinds();
    // Upstream's finders read the stores; only a cache miss goes to the apiserver.
    env.transport.failNth("GET", clusterInstancetypesGVR.resource, 0);
    env.transport.failNth("GET", clusterPreferencesGVR.resource, 0);
    await seedVM({
      runStrategy: "Always",
      instancetype: { name: "u1.small" },
      preference: { name: "fedora" },
    });
    await syncUntil(env, "vm", key);
    expect(vm()?.status?.instancetypeRef?.controllerRevisionRef?.name).toBe(
      "testvm-u1.small-v1beta1-it-uid-1",
    );
    expect(vmi()?.spec.domain.memory?.guest).toBe("2Gi");
    // What the VMI was given is a copy: the cached instance type is as the apiserver has it.
    const cached = env.server.get<InstancetypeControllerRevision & { spec?: unknown }>(
      tableOf(clusterInstancetypesGVR),
      "",
      "u1.small",
    );
    expect(cached?.spec).toEqual({ cpu: { guest: 2 }, memory: { guest: "2Gi" } });
  });

  it("read an instance type the informer has not seen yet from the apiserver", async () => {
    await seedVM({ runStrategy: "Always", instancetype: { name: "u1.small" } });
    env.server.hold();
    seedKinds();
    await env.vmController.execute(key);
    env.server.release();
    await env.server.settle();
    expect(vm()?.status?.instancetypeRef?.controllerRevisionRef?.name).toBe(
      "testvm-u1.small-v1beta1-it-uid-1",
    );
    expect(vm()?.status?.conditions ?? []).not.toContainEqual(expect.objectContaining({ type: "Failure" }));
  });

  it("report a missing instance type with upstream's reason and start nothing", async () => {
    await seedVM({ runStrategy: "Always", instancetype: { name: "missing" } });
    await expect(env.vmController.execute(key)).rejects.toThrow('"missing" not found');
    await env.server.settle();
    expect(vm()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Failure", status: "True", reason: "FailedFindInstancetype" }),
    );
    expect(vmi()).toBeUndefined();
  });

  it("report a missing preference with upstream's reason", async () => {
    seedKinds();
    await seedVM({ runStrategy: "Always", instancetype: { name: "u1.small" }, preference: { name: "gone" } });
    await expect(env.vmController.execute(key)).rejects.toThrow('"gone" not found');
    await env.server.settle();
    expect(vm()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Failure", status: "True", reason: "FailedFindPreference" }),
    );
  });
});

describe("a VM the expand reference policy cannot expand", () => {
  it("fails with upstream's unsupported sync error in its Failure condition", async () => {
    env.stop();
    env = await startControllerEnv(clusterWith({ instancetype: { referencePolicy: "expand" } }));
    seedKinds();
    const fixture = vmFixture("testvm", { runStrategy: "Always", instancetype: { name: "u1.small" } });
    delete fixture.spec.template.spec?.domain.resources;
    delete fixture.spec.template.spec?.domain.memory;
    // Admitted before the instance type came to size the CPU as well.
    fixture.spec.template.spec!.domain.cpu = { sockets: 2 };
    env.server.seed(Tables.vms, fixture);
    await env.server.settle();
    const message =
      "unsupported error: error encountered while expanding into VirtualMachine: VM field(s) " +
      "spec.template.spec.domain.cpu.sockets conflicts with selected instance type";
    await expect(env.vmController.execute(key)).rejects.toThrow(message);
    await env.server.settle();
    expect(vm()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Failure", status: "True", reason: "UnsupportedSyncError", message }),
    );
    expect(vm()?.spec.instancetype).toEqual({ name: "u1.small" });
    expect(vmi()).toBeUndefined();
  });
});

describe("starting a VM whose instance type or preference cannot be looked up", () => {
  // The lookups fail only at the start: the sync's existence check and revisions are skipped.
  class FailingLookups extends InstancetypeVMHandler {
    constructor(private readonly failing: "instancetype" | "preference") {
      super(
        new KubeClient(new FakeApiServer()),
        clientSources(new KubeClient(new FakeApiServer())),
        () => clusterWith(),
        { event: () => undefined },
      );
    }
    override async sync(vm: StoredVM): Promise<StoredVM> {
      return vm;
    }
    override async instancetypeFor(): Promise<undefined> {
      if (this.failing === "instancetype") throw new Error("instance type gone");
      return undefined;
    }
    override async preferenceFor(): Promise<undefined> {
      if (this.failing === "preference") throw new Error("preference gone");
      return undefined;
    }
  }

  async function startWith(failing: "instancetype" | "preference") {
    env.stop();
    env = await startControllerEnv(clusterWith(), { instancetypes: new FailingLookups(failing) });
    await seedVM({
      runStrategy: "Always",
      instancetype: { name: "u1.small" },
      preference: { name: "fedora" },
    });
  }

  it("reports the preference with upstream's device preferences event", async () => {
    await startWith("preference");
    await expect(env.vmController.execute(key)).rejects.toThrow(
      "Failure while starting VMI: preference gone",
    );
    expect(env.events).toContain(
      "Warning FailedCreate Error applying device preferences again: preference gone",
    );
    expect(vmi()).toBeUndefined();
  });

  it("reports the instance type with upstream's apply event", async () => {
    await startWith("instancetype");
    await expect(env.vmController.execute(key)).rejects.toThrow(
      "Failure while starting VMI: instance type gone",
    );
    expect(env.events).toContain(
      "Warning FailedCreate Error creating virtual machine instance: Failed to apply instancetype: instance type gone",
    );
    expect(vmi()).toBeUndefined();
  });
});

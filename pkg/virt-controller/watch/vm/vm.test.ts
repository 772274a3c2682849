import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoredVM, StoredVMI } from "../../../controller/resources.js";
import {
  startControllerEnv,
  syncOnce,
  syncUntilStable as syncUntil,
  Tables,
  vmFixture,
  vmiFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";
import { vmControllerReference } from "./vm-setup.js";

// The VM controller against an in-memory apiserver: each test drives syncs by hand and asserts the
// writes they make, as upstream's vm_test.go does with its fake clients.

let env: ControllerEnv;
beforeEach(async () => {
  env = await startControllerEnv();
});
afterEach(() => env.stop());

const key = "default/testvm";
const vm = () => env.server.get<StoredVM>(Tables.vms, "default", "testvm");
const vmi = () => env.server.get<StoredVMI>(Tables.vmis, "default", "testvm");
const vmis = () => env.server.list<StoredVMI>(Tables.vmis);

const sync = () => syncOnce(env, "vm", key);
const syncUntilStable = () => syncUntil(env, "vm", key);

async function seedVM(spec: Partial<StoredVM["spec"]>): Promise<StoredVM> {
  const seeded = env.server.seed(Tables.vms, vmFixture("testvm", spec));
  await env.server.settle();
  return seeded;
}

/** A VMI the VM started earlier, in the given phase. */
async function seedOwnedVMI(owner: StoredVM, phase: string): Promise<StoredVMI> {
  const fixture = vmiFixture("testvm", { phase });
  fixture.metadata = {
    ...fixture.metadata,
    ownerReferences: [vmControllerReference(owner)],
    annotations: { ...fixture.metadata?.annotations, "kubevirt.io/vm-generation": "1" },
  };
  const seeded = env.server.seed(Tables.vmis, fixture);
  await env.server.settle();
  return seeded;
}

describe("runStrategy Always", () => {
  it("creates the VMI from the template, owned by the VM, and reports Starting", async () => {
    await seedVM({ runStrategy: "Always" });
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "patch virtualmachines default/testvm",
      `create controllerrevisions default/revision-start-vm-${vm()?.metadata?.uid}-1`,
      "create virtualmachineinstances default/testvm",
      "update virtualmachines/status default/testvm",
    ]);
    expect(vm()?.metadata?.finalizers).toEqual(["kubevirt.io/virtualMachineControllerFinalize"]);
    expect(vmi()?.metadata).toMatchObject({
      labels: { "kubevirt.io/vm": "testvm" },
      annotations: { "kubevirt.io/vm-generation": "1" },
      finalizers: ["kubevirt.io/virtualMachineControllerFinalize"],
      ownerReferences: [
        {
          apiVersion: "kubevirt.io/v1",
          kind: "VirtualMachine",
          name: "testvm",
          uid: vm()?.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(vmi()?.spec.domain.devices.disks).toEqual([{ name: "containerdisk" }]);
    expect(vmi()?.status?.virtualMachineRevisionName).toBe(`revision-start-vm-${vm()?.metadata?.uid}-1`);
    expect(vm()?.status?.printableStatus).toBe("Starting");
    // created and ready are omitempty: false is written by leaving them out.
    expect(vm()?.status).not.toHaveProperty("created");
    expect(vm()?.status).not.toHaveProperty("ready");
    expect(env.events).toEqual([
      "Normal SuccessfulCreate Started the virtual machine by creating the new virtual machine instance testvm",
    ]);
  });

  it("reports the created VMI, then writes nothing more", async () => {
    await seedVM({ runStrategy: "Always" });
    await sync();
    env.server.takeWrites();
    await sync();
    expect(env.server.takeWrites()).toEqual(["update virtualmachines/status default/testvm"]);
    expect(vm()?.status).toMatchObject({
      created: true,
      runStrategy: "Always",
      printableStatus: "Starting",
      observedGeneration: 1,
      desiredGeneration: 1,
    });
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("does not create a second VMI while the cache has not seen the first", async () => {
    await seedVM({ runStrategy: "Always" });
    env.server.hold();
    // Writes from a stale cache may lose optimistic-concurrency races; the queue would retry them.
    for (let round = 0; round < 3; round++) await env.vmController.execute(key).catch(() => undefined);
    expect(vmis()).toHaveLength(1);
    env.server.release();
    await env.server.settle();
    await syncUntilStable();
    expect(vmis()).toHaveLength(1);
  });

  it("a restarted controller (fresh expectations) adopts what the cache shows instead of duplicating", async () => {
    await seedVM({ runStrategy: "Always" });
    await sync();
    const stored = { vm: vm(), vmi: vmi() };
    env.stop();
    env = await startControllerEnv();
    // The new controller starts from the same stored objects.
    if (stored.vm) env.server.seed(Tables.vms, stored.vm);
    if (stored.vmi) env.server.seed(Tables.vmis, stored.vmi);
    await env.server.settle();
    await syncUntilStable();
    expect(vmis()).toHaveLength(1);
  });

  it("deletes a VMI that finished, then starts a new one", async () => {
    const owner = await seedVM({ runStrategy: "Always" });
    const old = await seedOwnedVMI(owner, "Succeeded");
    await sync();
    expect(env.server.takeWrites()).toContain("delete virtualmachineinstances default/testvm");
    // The VMI controller lets it go once its Pods are gone.
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    await sync();
    expect(vmi()?.metadata?.uid).not.toBe(old.metadata?.uid);
  });
});

describe("stopping", () => {
  it("runStrategy Halted deletes the VMI, shows Stopping, then Stopped once it is gone", async () => {
    const owner = await seedVM({ runStrategy: "Halted" });
    const running = await seedOwnedVMI(owner, "Running");
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "patch virtualmachines default/testvm",
      "delete virtualmachineinstances default/testvm",
      "update virtualmachines/status default/testvm",
    ]);
    expect(env.events).toEqual([
      `Normal SuccessfulDelete Stopped the virtual machine by deleting the virtual machine instance ${running.metadata?.uid}`,
    ]);
    expect(vmi()?.metadata?.deletionTimestamp).toBeDefined();
    expect(vm()?.status?.printableStatus).toBe("Stopping");
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    await sync();
    expect(vm()?.status).toMatchObject({ printableStatus: "Stopped", runStrategy: "Halted" });
    expect(vm()?.status?.created).toBeUndefined();
  });

  it("the deprecated running: false is Halted, running: true is Always", async () => {
    await seedVM({ running: false });
    await syncUntilStable();
    expect(vmis()).toHaveLength(0);
    expect(vm()?.status?.printableStatus).toBe("Stopped");
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.running = true;
    });
    await env.server.settle();
    await syncUntilStable();
    expect(vmis()).toHaveLength(1);
  });

  it("a VM being deleted deletes its VMI first, then drops its finalizer", async () => {
    const owner = await seedVM({ runStrategy: "Always" });
    await seedOwnedVMI(owner, "Running");
    await sync();
    env.server.takeWrites();
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "delete virtualmachineinstances default/testvm",
      "update virtualmachines/status default/testvm",
    ]);
    expect(vm()?.status?.printableStatus).toBe("Terminating");
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toContain("patch virtualmachines default/testvm");
    expect(vm()).toBeUndefined();
  });
});

describe("state change requests", () => {
  it("Manual starts only on a start request, and drops the request once the VMI exists", async () => {
    await seedVM({ runStrategy: "Manual" });
    await syncUntilStable();
    expect(vmis()).toHaveLength(0);
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.status = { ...obj.status, stateChangeRequests: [{ action: "Start" }] };
    });
    await env.server.settle();
    await syncUntilStable();
    expect(vmis()).toHaveLength(1);
    expect(vm()?.status?.stateChangeRequests ?? []).toEqual([]);
  });

  it("restart (Stop with the VMI's uid, then Start) replaces the VMI exactly once", async () => {
    const owner = await seedVM({ runStrategy: "Always" });
    const old = await seedOwnedVMI(owner, "Running");
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.status = { stateChangeRequests: [{ action: "Stop", uid: old.metadata?.uid }, { action: "Start" }] };
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toContain("delete virtualmachineinstances default/testvm");
    expect(vmis()).toHaveLength(1);
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    const writes = await syncUntilStable();
    expect(writes.filter((write) => write.startsWith("create virtualmachineinstances"))).toHaveLength(1);
    expect(vmi()?.metadata?.uid).not.toBe(old.metadata?.uid);
    expect(vm()?.status?.stateChangeRequests ?? []).toEqual([]);
  });

  it("RerunOnFailure restarts a failed VMI through a start request, but not a succeeded one", async () => {
    const owner = await seedVM({ runStrategy: "RerunOnFailure" });
    await seedOwnedVMI(owner, "Failed");
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "patch virtualmachines default/testvm",
      "delete virtualmachineinstances default/testvm",
      "patch virtualmachines/status default/testvm",
      "update virtualmachines/status default/testvm",
    ]);
    expect(vm()?.status?.stateChangeRequests).toEqual([{ action: "Start" }]);

    env.server.remove(Tables.vmis, "default", "testvm");
    await seedOwnedVMI(vm() ?? owner, "Succeeded");
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.status = { ...obj.status, stateChangeRequests: [] };
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).not.toContain("patch virtualmachines/status default/testvm");
  });
});

describe("failures and generations", () => {
  it("a VMI that cannot be created sets the Failure condition and a warning event", async () => {
    // Someone else's VMI holds the name.
    env.server.seed(Tables.vmis, vmiFixture("testvm"));
    await seedVM({ runStrategy: "Always" });
    await expect(env.vmController.execute(key)).rejects.toThrow(
      /Failure while starting VMI: .*already exists/,
    );
    await env.server.settle();
    expect(vm()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Failure", status: "True", reason: "FailedCreate" }),
    );
    expect(
      env.events.some((event) =>
        event.startsWith("Warning FailedCreate Error creating virtual machine instance:"),
      ),
    ).toBe(true);
  });

  it("moves the VMI's generation forward when only the run strategy changed", async () => {
    await seedVM({ runStrategy: "Always" });
    await syncUntilStable();
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.runStrategy = "RerunOnFailure";
    });
    await env.server.settle();
    await syncUntilStable();
    expect(vm()?.metadata?.generation).toBe(2);
    expect(vmi()?.metadata?.annotations?.["kubevirt.io/vm-generation"]).toBe("2");
    expect(vm()?.status).toMatchObject({ observedGeneration: 2, desiredGeneration: 2 });
  });
});

describe("start failure backoff", () => {
  const at = (seconds: number) => () => Date.parse("2026-01-01T00:00:00Z") + seconds * 1000;
  /** The VMI fails without ever running (its Pod crashed, say), and the VMI controller lets it go. */
  async function failEarlyAndGo(): Promise<void> {
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvm", (obj) => {
      obj.status = { ...obj.status, phase: "Failed" };
    });
    await env.server.settle();
    await sync();
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
  }

  it("RerunOnFailure restarts a VMI that failed early only after 10 s, then 40 s, and a run resets it", async () => {
    await seedVM({ runStrategy: "RerunOnFailure" });
    await syncUntilStable();
    const first = vmi()?.metadata?.uid;

    await failEarlyAndGo();
    expect(vm()?.status?.startFailure).toEqual({
      lastFailedVMIUID: first,
      retryAfterTimestamp: "2026-01-01T00:00:10Z",
      consecutiveFailCount: 1,
    });
    await expect(env.vmController.execute(key)).resolves.toEqual({ requeueAfter: 10_000 });
    await env.server.settle();
    expect(vmis()).toHaveLength(0);
    expect(vm()?.status?.printableStatus).toBe("CrashLoopBackOff");

    env.server.now = at(10);
    await syncUntilStable();
    expect(vmi()?.metadata?.uid).not.toBe(first);
    expect(vm()?.status?.printableStatus).toBe("Starting");

    await failEarlyAndGo();
    expect(vm()?.status?.startFailure).toMatchObject({
      retryAfterTimestamp: "2026-01-01T00:00:50Z",
      consecutiveFailCount: 2,
    });
    await expect(env.vmController.execute(key)).resolves.toEqual({ requeueAfter: 40_000 });
    await env.server.settle();
    expect(vmis()).toHaveLength(0);
    env.server.now = at(50);
    await syncUntilStable();
    expect(vmis()).toHaveLength(1);

    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvm", (obj) => {
      obj.status = {
        ...obj.status,
        phase: "Running",
        phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: "2026-01-01T00:01:00Z" }],
      };
    });
    await env.server.settle();
    await syncUntilStable();
    expect(vm()?.status?.startFailure).toBeUndefined();
    expect(vm()?.status?.printableStatus).toBe("Running");
  });

  it("Once leaves a failed VMI as it ended and starts no other", async () => {
    await seedVM({ runStrategy: "Once" });
    await syncUntilStable();
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvm", (obj) => {
      obj.status = { ...obj.status, phase: "Failed" };
    });
    await env.server.settle();
    const writes = await syncUntilStable();
    expect(writes).not.toContain("delete virtualmachineinstances default/testvm");
    expect(vmis()).toHaveLength(1);
    expect(vmi()?.status?.phase).toBe("Failed");
    // Once counts the failure too (upstream), but never acts on it.
    expect(vm()?.status?.printableStatus).toBe("CrashLoopBackOff");
    env.server.now = () => Date.parse("2026-01-01T01:00:00Z");
    expect(await syncUntilStable()).toEqual([]);
    expect(vmis()).toHaveLength(1);
  });
});

describe("RestartRequired", () => {
  const restartRequired = () =>
    vm()?.status?.conditions?.find((condition) => condition.type === "RestartRequired");

  it("appears when the template changes under a running VMI, and goes with the restart", async () => {
    await seedVM({ runStrategy: "Always" });
    await syncUntilStable();
    const first = vmi();
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvm", (obj) => {
      obj.status = { ...obj.status, phase: "Running" };
    });
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      if (obj.spec.template?.spec) obj.spec.template.spec.hostname = "renamed";
    });
    await env.server.settle();
    await syncUntilStable();
    expect(restartRequired()).toEqual({
      type: "RestartRequired",
      status: "True",
      message: "a non-live-updatable field was changed in the template spec",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    // The VMI keeps running what it was started with.
    expect(vmi()?.metadata?.uid).toBe(first?.metadata?.uid);
    expect(vm()?.status).toMatchObject({ observedGeneration: 1, desiredGeneration: 2 });

    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.status = {
        ...obj.status,
        stateChangeRequests: [{ action: "Stop", uid: first?.metadata?.uid }, { action: "Start" }],
      };
    });
    await env.server.settle();
    await sync();
    // Still true while the old VMI goes.
    expect(restartRequired()?.status).toBe("True");
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    // The sync that starts the new VMI already clears it.
    await sync();
    expect(vmi()?.spec.hostname).toBe("renamed");
    expect(restartRequired()).toBeUndefined();
    await syncUntilStable();
    expect(restartRequired()).toBeUndefined();
  });

  it("does not appear for the firmware UUID the controller writes into the template itself", async () => {
    const fixture = vmFixture("testvm", { runStrategy: "Always" });
    delete fixture.spec.template?.spec?.domain.firmware;
    env.server.seed(Tables.vms, fixture);
    await env.server.settle();
    await syncUntilStable();
    expect(vm()?.spec.template?.spec?.domain.firmware?.uuid).toBe(vmi()?.spec.domain.firmware?.uuid);
    expect(vm()?.metadata?.generation).toBe(2);
    expect(restartRequired()).toBeUndefined();
  });

  it("does not appear when only the run strategy changed", async () => {
    await seedVM({ runStrategy: "Always" });
    await syncUntilStable();
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.runStrategy = "Manual";
    });
    await env.server.settle();
    await syncUntilStable();
    expect(restartRequired()).toBeUndefined();
  });
});

describe("start strategy", () => {
  it("a template's startStrategy Paused, and a paused start request, reach the VMI", async () => {
    const fixture = vmFixture("testvm", { runStrategy: "Always" });
    if (fixture.spec.template?.spec) fixture.spec.template.spec.startStrategy = "Paused";
    env.server.seed(Tables.vms, fixture);
    await env.server.settle();
    await syncUntilStable();
    expect(vmi()?.spec.startStrategy).toBe("Paused");

    env.server.remove(Tables.vmis, "default", "testvm");
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (obj) => {
      obj.spec.runStrategy = "Manual";
      delete obj.spec.template?.spec?.startStrategy;
      obj.status = { ...obj.status, stateChangeRequests: [{ action: "Start", data: { paused: "true" } }] };
    });
    await env.server.settle();
    await syncUntilStable();
    expect(vmi()?.spec.startStrategy).toBe("Paused");
  });
});

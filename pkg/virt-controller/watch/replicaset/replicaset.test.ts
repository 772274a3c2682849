import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../controller/api-error.js";
import type { StoredVMI, StoredVMIRS } from "../../../controller/resources.js";
import {
  readyStatus,
  replicaSetFixture,
  startReplicaSetEnv,
  Tables,
  vmiFixture,
  type ReplicaSetEnv,
} from "./testing.js";

// The replica set controller against an in-memory apiserver, as upstream's replicaset_test.go drives
// it: each test seeds objects, runs one sync by hand and asserts the writes, objects and events.

let env: ReplicaSetEnv;
beforeEach(async () => {
  env = await startReplicaSetEnv();
});
afterEach(() => env.stop());

const key = "default/rs";
const rs = () => env.server.get<StoredVMIRS>(Tables.replicaSets, "default", "rs");
const vmis = () => env.server.list<StoredVMI>(Tables.vmis);
const ownedVMIs = () =>
  vmis().filter((vmi) => vmi.metadata?.ownerReferences?.some((ref) => ref.uid === rs()?.metadata?.uid));
const writes = (verb: string) => env.server.takeWrites().filter((write) => write.startsWith(verb));
const sync = async () => {
  await env.controller.execute(key);
  await env.server.settle();
};

async function seedRS(
  replicas: number | undefined,
  change?: (obj: StoredVMIRS) => void,
): Promise<StoredVMIRS> {
  const fixture = replicaSetFixture(replicas);
  change?.(fixture);
  const seeded = env.server.seed(Tables.replicaSets, fixture);
  await env.server.settle();
  return seeded;
}

async function seedVMIs(
  count: number,
  owner?: StoredVMIRS,
  change?: (vmi: StoredVMI) => void,
): Promise<void> {
  for (let index = 0; index < count; index++) {
    const vmi = vmiFixture(`testvmi${vmis().length}`, owner);
    change?.(vmi);
    env.server.seed(Tables.vmis, vmi);
  }
  await env.server.settle();
}

const deleting = (vmi: StoredVMI) => {
  vmi.metadata = {
    ...vmi.metadata,
    deletionTimestamp: "2026-01-01T00:00:00Z",
    finalizers: ["kubevirt.io/foregroundDeleteVirtualMachine"],
  };
};

const eventReasons = () => env.events.map((event) => event.split(" ").slice(0, 2).join(" "));

describe("scaling up", () => {
  it("creates the missing VMIs from the template, named after the replica set and owned by it", async () => {
    const owner = await seedRS(3);
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "create virtualmachineinstances default/rsxxxx1",
      "create virtualmachineinstances default/rsxxxx2",
      "create virtualmachineinstances default/rsxxxx3",
    ]);
    const created = vmis();
    expect(created).toHaveLength(3);
    for (const vmi of created) {
      expect(vmi.metadata).toMatchObject({
        generateName: "rs",
        labels: { test: "test" },
        annotations: { note: "from the template" },
        ownerReferences: [
          {
            apiVersion: "kubevirt.io/v1",
            kind: "VirtualMachineInstanceReplicaSet",
            name: "rs",
            uid: owner.metadata?.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      });
      expect(vmi.spec).toEqual(owner.spec.template.spec);
    }
    expect(env.events).toEqual(
      created.map(
        (vmi) =>
          `Normal SuccessfulCreate Started the virtual machine by creating the new virtual machine instance ${vmi.metadata?.name}`,
      ),
    );
  });

  it("takes the template's name, else its generateName, as the base name", async () => {
    await seedRS(2, (obj) => {
      obj.spec.template.metadata = { ...obj.spec.template.metadata, generateName: "web-" };
    });
    await sync();
    expect(vmis().map((vmi) => vmi.metadata?.generateName)).toEqual(["web-", "web-"]);
    env.server.mutate<StoredVMIRS>(Tables.replicaSets, "default", "rs", (obj) => {
      obj.spec.replicas = 3;
      obj.spec.template.metadata = { ...obj.spec.template.metadata, name: "named" };
    });
    await env.server.settle();
    await sync();
    expect(vmis().map((vmi) => vmi.metadata?.generateName)).toEqual(["web-", "web-", "named"]);
  });

  it("defaults replicas to 1", async () => {
    await seedRS(undefined);
    await sync();
    expect(vmis()).toHaveLength(1);
  });

  it("creates at most burstReplicas VMIs per sync, the rest once those are seen", async () => {
    await seedRS(15);
    await sync();
    expect(writes("create")).toHaveLength(10);
    await sync();
    expect(writes("create")).toHaveLength(5);
    expect(vmis()).toHaveLength(15);
  });

  it("replaces VMIs being deleted at once, not when they are finally gone", async () => {
    const owner = await seedRS(10);
    await seedVMIs(3, owner);
    await seedVMIs(3, owner, deleting);
    await sync();
    expect(writes("create")).toHaveLength(7);
    expect(ownedVMIs()).toHaveLength(13);
  });

  it("ignores VMIs that do not match, and VMIs another controller owns", async () => {
    const owner = await seedRS(3);
    await seedVMIs(1, undefined, (vmi) => {
      vmi.metadata = { ...vmi.metadata, labels: { test: "test1" } };
    });
    await seedVMIs(1, { ...owner, metadata: { ...owner.metadata, name: "other", uid: "other-uid" } });
    await sync();
    expect(env.server.takeWrites().filter((write) => !write.startsWith("create"))).toEqual([]);
    expect(ownedVMIs()).toHaveLength(3);
    expect(vmis()).toHaveLength(5);
  });
});

describe("expectations", () => {
  it("does not create again while the cache has not seen its creations", async () => {
    await seedRS(3);
    env.server.hold();
    await env.controller.execute(key);
    await env.controller.execute(key);
    expect(vmis()).toHaveLength(3);
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(false);
    env.server.release();
    await env.server.settle();
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(true);
    await sync();
    expect(vmis()).toHaveLength(3);
  });

  it("does not delete again while the cache has not seen its deletions", async () => {
    const owner = await seedRS(1);
    await seedVMIs(3, owner);
    env.server.hold();
    await env.controller.execute(key);
    await env.controller.execute(key);
    expect(writes("delete")).toHaveLength(2);
    env.server.release();
    await env.server.settle();
    await sync();
    expect(writes("delete")).toEqual([]);
    expect(vmis()).toHaveLength(1);
  });

  it("a deletion seen first as a deletionTimestamp, then as the delete, counts once", async () => {
    const owner = await seedRS(1);
    await seedVMIs(2, owner, (vmi) => {
      vmi.metadata = { ...vmi.metadata, finalizers: ["kubevirt.io/foregroundDeleteVirtualMachine"] };
    });
    await sync();
    const [deleted] = vmis().filter((vmi) => vmi.metadata?.deletionTimestamp);
    expect(deleted).toBeDefined();
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(true);
    env.server.mutate<StoredVMI>(Tables.vmis, "default", deleted?.metadata?.name ?? "", (vmi) => {
      vmi.metadata = { ...vmi.metadata, finalizers: [] };
    });
    await env.server.settle();
    expect(env.controller.expectations.expectations.getExpectations(key)).toMatchObject({ add: 0, del: 0 });
  });

  it("a VMI first seen already being deleted is not taken for one of its creations", async () => {
    const owner = await seedRS(1);
    env.controller.expectations.expectCreations(key, 1);
    await seedVMIs(1, owner, deleting);
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(false);
  });

  it("a restarted controller (fresh expectations) counts what the cache shows instead of duplicating", async () => {
    await seedRS(3);
    await sync();
    env.stop();
    env = await startReplicaSetEnv(env.server);
    env.server.takeWrites();
    await sync();
    expect(writes("create")).toEqual([]);
    expect(vmis()).toHaveLength(3);
  });

  it("forgets a replica set that is gone", async () => {
    await seedRS(3);
    env.server.hold();
    await env.controller.execute(key);
    env.server.remove(Tables.replicaSets, "default", "rs");
    env.server.release();
    await env.server.settle();
    await env.controller.execute(key);
    expect(env.controller.expectations.expectations.getExpectations(key)).toBeUndefined();
  });
});

describe("scaling down", () => {
  it("deletes at most burstReplicas VMIs per sync, the first ones in the cache", async () => {
    const owner = await seedRS(0);
    await seedVMIs(15, owner);
    await sync();
    expect(writes("delete")).toEqual(
      Array.from({ length: 10 }, (_, index) => `delete virtualmachineinstances default/testvmi${index}`),
    );
    expect(ownedVMIs()).toHaveLength(5);
    expect(env.events.filter((event) => event.startsWith("Normal SuccessfulDelete"))).toHaveLength(10);
  });

  it("does not delete VMIs already being deleted", async () => {
    const owner = await seedRS(3);
    await seedVMIs(5, owner);
    await seedVMIs(4, owner, deleting);
    await sync();
    expect(writes("delete")).toHaveLength(2);
    expect(ownedVMIs()).toHaveLength(7);
  });

  it("says which VMI it deleted, and reports the replicas it saw", async () => {
    const owner = await seedRS(0);
    await seedVMIs(1, owner);
    const [vmi] = vmis();
    await sync();
    expect(vmis()).toEqual([]);
    expect(env.events).toEqual([
      `Normal SuccessfulDelete Stopped the virtual machine by deleting the virtual machine instance ${vmi?.metadata?.uid}`,
    ]);
    expect(rs()?.status).toEqual({ replicas: 1, labelSelector: "test=test" });
  });
});

describe("adoption and release", () => {
  it("adopts a matching orphan with a uid-guarded merge patch instead of creating a VMI", async () => {
    const owner = await seedRS(1);
    await seedVMIs(1);
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "patch virtualmachineinstances default/testvmi0",
      "update virtualmachineinstancereplicasets/status default/rs",
    ]);
    expect(vmis()).toHaveLength(1);
    expect(vmis()[0]?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachineInstanceReplicaSet",
        name: "rs",
        uid: owner.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs()?.status?.replicas).toBe(1);
  });

  it("releases an owned VMI whose labels stop matching, and replaces it", async () => {
    const owner = await seedRS(1);
    await seedVMIs(1, owner);
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi0", (vmi) => {
      vmi.metadata = { ...vmi.metadata, labels: { test: "debug" } };
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "patch virtualmachineinstances default/testvmi0",
      "create virtualmachineinstances default/rsxxxx1",
    ]);
    expect(env.server.get<StoredVMI>(Tables.vmis, "default", "testvmi0")?.metadata?.ownerReferences).toEqual(
      [],
    );
    expect(ownedVMIs()).toHaveLength(1);
  });

  it("does not adopt when a live read shows the replica set being deleted", async () => {
    await seedRS(1);
    await seedVMIs(1);
    const uid = vmis()[0]?.metadata?.uid ?? "";
    env.server.hold();
    env.server.mutate<StoredVMIRS>(Tables.replicaSets, "default", "rs", (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["keep"] };
    });
    await expect(env.controller.execute(key)).rejects.toThrow(
      `can't adopt VirtualMachineInstance default/testvmi0 (${uid}): default/rs has just been deleted at 2026-01-01T00:00:00Z`,
    );
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("does not adopt for a replica set that was replaced under the same name", async () => {
    await seedRS(1);
    await seedVMIs(1);
    env.server.hold();
    env.server.remove(Tables.replicaSets, "default", "rs");
    const replacement = env.server.seed(Tables.replicaSets, replicaSetFixture(1));
    await expect(env.controller.execute(key)).rejects.toThrow(
      new RegExp(
        `original ReplicaSet default/rs is gone: got uid ${replacement.metadata?.uid}, wanted uid-rs-`,
      ),
    );
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("neither adopts, scales nor releases while being deleted", async () => {
    const owner = await seedRS(3, (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["keep"] };
    });
    await seedVMIs(1);
    await seedVMIs(1, owner, (vmi) => {
      vmi.metadata = { ...vmi.metadata, labels: { test: "debug" } };
    });
    await sync();
    expect(writes("patch")).toEqual([]);
    expect(writes("create")).toEqual([]);
  });
});

describe("finished VMIs", () => {
  it.each([
    ["Failed", { phase: "Failed" }],
    ["Succeeded", { phase: "Succeeded" }],
    ["unknown (its Pod terminating)", readyStatus(false, "PodTerminating")],
  ])("a %s VMI is replaced and deleted", async (_what, status) => {
    const owner = await seedRS(1, (obj) => {
      obj.status = { ...obj.status, replicas: 1, readyReplicas: 1 };
    });
    await seedVMIs(1, owner, (vmi) => {
      vmi.status = readyStatus(true);
    });
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
    const finished = env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi0", (vmi) => {
      vmi.status = status;
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toEqual([
      "create virtualmachineinstances default/rsxxxx1",
      "delete virtualmachineinstances default/testvmi0",
      "update virtualmachineinstancereplicasets/status default/rs",
    ]);
    expect(vmis().map((vmi) => vmi.metadata?.name)).toEqual(["rsxxxx1"]);
    expect(rs()?.status).toEqual({ labelSelector: "test=test" });
    expect(eventReasons()).toEqual(["Normal SuccessfulCreate", "Normal SuccessfulDelete"]);
    expect(env.events[1]).toBe(
      `Normal SuccessfulDelete Deleted finished virtual machine: ${finished.metadata?.uid}`,
    );
  });

  it("a deleted VMI wakes the replica set, which creates a new one", async () => {
    const owner = await seedRS(1, (obj) => {
      obj.status = { ...obj.status, replicas: 1 };
    });
    await seedVMIs(1, owner);
    await env.takeQueued();
    env.server.remove(Tables.vmis, "default", "testvmi0");
    expect(await env.takeQueued()).toEqual([key]);
    await sync();
    expect(writes("create")).toHaveLength(1);
    expect(rs()?.status).toEqual({ labelSelector: "test=test" });
  });
});

describe("paused", () => {
  it("does not scale, adds ReplicaPaused, and tells once", async () => {
    await seedRS(3, (obj) => {
      obj.spec.paused = true;
      obj.status = { ...obj.status, replicas: 1 };
    });
    await sync();
    expect(env.server.takeWrites()).toEqual(["update virtualmachineinstancereplicasets/status default/rs"]);
    expect(rs()?.status).toEqual({
      labelSelector: "test=test",
      conditions: [
        {
          type: "ReplicaPaused",
          status: "True",
          reason: "Paused",
          message: "Controller got paused",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    });
    expect(env.events).toEqual(["Normal SuccessfulPaused Paused"]);
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
    expect(env.events).toHaveLength(1);
  });

  it("resumed: creates the missing VMIs and removes ReplicaPaused", async () => {
    await seedRS(3, (obj) => {
      obj.status = {
        ...obj.status,
        conditions: [{ type: "ReplicaPaused", status: "True", lastTransitionTime: "2025-12-01T00:00:00Z" }],
      };
    });
    await sync();
    expect(vmis()).toHaveLength(3);
    // What it saw before creating: no replicas yet.
    expect(rs()?.status).toEqual({ labelSelector: "test=test" });
    expect(eventReasons()).toEqual([
      "Normal SuccessfulCreate",
      "Normal SuccessfulCreate",
      "Normal SuccessfulCreate",
      "Normal SuccessfulResumed",
    ]);
    expect(env.events[3]).toBe("Normal SuccessfulResumed Resumed");
  });
});

describe("status", () => {
  it("writes nothing when it has nothing to do", async () => {
    const owner = await seedRS(1, (obj) => {
      obj.status = { ...obj.status, replicas: 1 };
    });
    await seedVMIs(1, owner);
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("fills in the selector in string form, for the scale subresource", async () => {
    const owner = await seedRS(1, (obj) => {
      obj.spec.selector = {
        matchLabels: { test: "test" },
        matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod", "dev"] }],
      };
      obj.status = { replicas: 1 };
    });
    await seedVMIs(1, owner);
    await sync();
    expect(env.server.takeWrites()).toEqual(["update virtualmachineinstancereplicasets/status default/rs"]);
    expect(rs()?.status).toEqual({ replicas: 1, labelSelector: "env notin (dev,prod),test=test" });
  });

  it("counts the VMIs whose Ready condition is True as ready", async () => {
    const owner = await seedRS(2, (obj) => {
      obj.status = { ...obj.status, replicas: 2 };
    });
    await seedVMIs(2, owner);
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi0", (vmi) => {
      vmi.status = readyStatus(true);
    });
    await env.server.settle();
    expect(await env.takeQueued()).toEqual([key]);
    await sync();
    expect(rs()?.status).toEqual({ replicas: 2, readyReplicas: 1, labelSelector: "test=test" });
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi0", (vmi) => {
      vmi.status = readyStatus(false);
    });
    await env.server.settle();
    await sync();
    expect(rs()?.status).toEqual({ replicas: 2, labelSelector: "test=test" });
  });

  it("a status write that loses a race is not retried by this sync (the change queues it again)", async () => {
    await seedRS(1, (obj) => {
      obj.spec.paused = true;
    });
    env.transport.failNth("PUT", "status", 1, new ApiError(409, "Conflict", "the object has been modified"));
    await expect(env.controller.execute(key)).resolves.toBeUndefined();
    expect(env.events).toEqual([]);
  });
});

describe("failures", () => {
  it("a failed creation: warning event, ReplicaFailure FailedCreate, and the sync fails", async () => {
    const owner = await seedRS(3);
    await seedVMIs(1, owner);
    env.transport.failNth("POST", "virtualmachineinstances", 2);
    await expect(env.controller.execute(key)).rejects.toThrow("failure");
    await env.server.settle();
    expect(rs()?.status).toEqual({
      replicas: 1,
      labelSelector: "test=test",
      conditions: [
        {
          type: "ReplicaFailure",
          status: "True",
          reason: "FailedCreate",
          message: "failure",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    });
    // The two creations run side by side: their events come in either order.
    expect([...env.events].sort()).toEqual([
      expect.stringMatching(/^Normal SuccessfulCreate /),
      "Warning FailedCreate Error creating virtual machine instance: failure",
    ]);
    // The refused creation is not waited for.
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(true);
  });

  it("a failed deletion: warning event, ReplicaFailure FailedDelete, and the sync fails", async () => {
    const owner = await seedRS(0);
    await seedVMIs(2, owner);
    env.transport.failNth("DELETE", "virtualmachineinstances", 2);
    await expect(env.controller.execute(key)).rejects.toThrow("failure");
    await env.server.settle();
    expect(rs()?.status?.replicas).toBe(2);
    expect(rs()?.status?.conditions).toEqual([
      expect.objectContaining({ type: "ReplicaFailure", reason: "FailedDelete", message: "failure" }),
    ]);
    expect([...env.events].sort()).toEqual([
      expect.stringMatching(/^Normal SuccessfulDelete /),
      "Warning FailedDelete Error deleting virtual machine instance testvmi1: failure",
    ]);
    expect(env.controller.expectations.satisfiedExpectations(key)).toBe(true);
  });

  it("a failed sync is retried with backoff by the queue", async () => {
    const owner = await seedRS(0);
    await seedVMIs(1, owner);
    env.transport.failNth("DELETE", "virtualmachineinstances", 0);
    const stop = new AbortController();
    const running = env.controller.run(1, stop.signal);
    await env.controller.queue.idle();
    expect(env.controller.queue.numRequeues(key)).toBeGreaterThan(0);
    stop.abort();
    await running;
  });

  it("keeps an existing failure condition as it was while failing, removes it once scaling works", async () => {
    const previous = {
      type: "ReplicaFailure",
      status: "True",
      reason: "FailedCreate",
      message: "test",
      lastTransitionTime: "2025-12-01T00:00:00Z",
    };
    const owner = await seedRS(3, (obj) => {
      obj.status = { ...obj.status, conditions: [previous] };
    });
    await seedVMIs(1, owner);
    env.transport.failNth("POST", "virtualmachineinstances", 2);
    await expect(env.controller.execute(key)).rejects.toThrow("failure");
    await env.server.settle();
    expect(rs()?.status).toEqual({ replicas: 1, labelSelector: "test=test", conditions: [previous] });
    await sync();
    expect(rs()?.status).toEqual({ replicas: 2, labelSelector: "test=test" });
  });
});

describe("the replica set itself", () => {
  it("first stores itself in the current API version, and does nothing else in that sync", async () => {
    await seedRS(1, (obj) => {
      obj.metadata = { ...obj.metadata, annotations: {} };
    });
    await sync();
    expect(env.server.takeWrites()).toEqual(["update virtualmachineinstancereplicasets default/rs"]);
    expect(rs()?.metadata?.annotations).toEqual({
      "kubevirt.io/latest-observed-api-version": "v1",
      "kubevirt.io/storage-observed-api-version": "v1",
    });
  });

  it.each([
    ["template without labels", (obj: StoredVMIRS) => (obj.spec.template.metadata = {})],
    [
      "selector that does not parse",
      (obj: StoredVMIRS) => (obj.spec.selector = { matchExpressions: [{ key: "test", operator: "Near" }] }),
    ],
    [
      "selector not matching the template",
      (obj: StoredVMIRS) => (obj.spec.selector = { matchLabels: { a: "b" } }),
    ],
  ])("an invalid spec (%s) is left alone without retrying", async (_what, change) => {
    await seedRS(3, change);
    await expect(env.controller.execute(key)).resolves.toBeUndefined();
    expect(env.server.takeWrites()).toEqual([]);
  });
});

describe("event handlers", () => {
  it("an orphan VMI wakes the replica sets that select it, one owned by another one does not", async () => {
    await seedRS(1);
    env.server.seed(Tables.replicaSets, { ...replicaSetFixture(1, "other") });
    await env.takeQueued();
    await seedVMIs(1);
    expect((await env.takeQueued()).sort()).toEqual(["default/other", key]);
    const owner = rs();
    await seedVMIs(1, owner);
    expect(await env.takeQueued()).toEqual([key]);
  });

  it("a VMI that changes owner wakes both owners", async () => {
    const owner = await seedRS(1);
    const other = env.server.seed(Tables.replicaSets, replicaSetFixture(1, "other"));
    await seedVMIs(1, owner);
    await env.takeQueued();
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi0", (vmi) => {
      vmi.metadata = { ...vmi.metadata, ownerReferences: vmiFixture("x", other).metadata?.ownerReferences };
    });
    expect((await env.takeQueued()).sort()).toEqual(["default/other", key]);
  });

  it("a VMI naming a replica set with another uid wakes nobody", async () => {
    const owner = await seedRS(1);
    await env.takeQueued();
    await seedVMIs(1, { ...owner, metadata: { ...owner.metadata, uid: "stale" } });
    expect(await env.takeQueued()).toEqual([]);
  });
});

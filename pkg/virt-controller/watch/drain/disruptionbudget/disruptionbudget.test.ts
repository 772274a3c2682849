import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../../controller/api-error.js";
import type { OwnerReference } from "../../../../controller/object.js";
import type { StoredVMI } from "../../../../controller/resources.js";
import { takeQueued } from "../../../../controller/testing/controller-harness.js";
import { migrationFixture, runningVMIFixture, sourcePodFixture } from "../../migration/testing.js";
import { pdbFixture, startDisruptionBudgetEnv, Tables, type DisruptionBudgetEnv } from "./testing.js";
import type { PodDisruptionBudget } from "./vmi-owned-pdbs.js";

// The disruption-budget controller against an in-memory apiserver, as upstream's disruptionbudget_test.go
// checks it: every budget a VMI controls is deleted, whatever the eviction strategy, the phase, or whether
// the VMI still exists, with upstream's events; expectations keep a lagging cache from deleting twice.

let env: DisruptionBudgetEnv;
beforeEach(async () => {
  env = await startDisruptionBudgetEnv();
});
afterEach(() => env.stop());

interface VMIOptions {
  strategy?: string;
  migratable?: boolean;
  phase?: string;
  uid?: string;
  deleting?: boolean;
}

/** upstream's migratableVirtualMachine / nonMigratableVirtualMachine: testvm in default, uid 1234. */
function testVMI(options: VMIOptions = {}): StoredVMI {
  const vmi = runningVMIFixture("testvm");
  vmi.metadata = { ...vmi.metadata, uid: options.uid ?? "1234" };
  if (options.deleting) vmi.metadata.finalizers = ["kubevirt.io/foregroundDeleteVirtualMachine"];
  if (options.strategy) vmi.spec.evictionStrategy = options.strategy;
  const status = (vmi.status ??= {});
  if (options.phase) status.phase = options.phase;
  if (options.migratable) status.conditions = [{ type: "LiveMigratable", status: "True" }];
  return vmi;
}

async function seedVMI(options: VMIOptions = {}): Promise<StoredVMI> {
  const stored = env.server.seed(Tables.vmis, testVMI(options));
  if (options.deleting) {
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvm", (vmi) => {
      vmi.metadata = { ...vmi.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
  }
  await env.server.settle();
  return stored;
}

async function seedPDB(pdb: PodDisruptionBudget): Promise<void> {
  env.server.seed(Tables.pdbs, pdb);
  await env.server.settle();
}

/** A budget of testvm's whose owner reference is changed: another kind, or not the controller. */
function ownedDifferently(name: string, change: Partial<OwnerReference>): PodDisruptionBudget {
  const pdb = pdbFixture(testVMI(), 1, name);
  pdb.metadata.ownerReferences = pdb.metadata.ownerReferences.map((ref) => ({ ...ref, ...change }));
  return pdb;
}

const pdbNames = () =>
  env.server
    .list<PodDisruptionBudget>(Tables.pdbs)
    .map((pdb) => pdb.metadata?.name)
    .sort();
const deleted = (...names: string[]) => names.map((name) => `delete poddisruptionbudgets default/${name}`);

describe("the disruption-budget controller", () => {
  it("does nothing for a VMI without budgets", async () => {
    await seedVMI();
    expect(await env.sync()).toBeUndefined();
    expect(env.server.takeWrites()).toEqual([]);
    expect(env.events).toEqual([]);
  });

  it("deletes the budget of a VMI that does not want to live-migrate, as upstream reports it", async () => {
    const vmi = await seedVMI();
    await seedPDB(pdbFixture(vmi));
    expect(await env.sync()).toBeUndefined();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(pdbNames()).toEqual([]);
    expect(env.events).toEqual(["Normal SuccessfulDelete Deleted PodDisruptionBudget pdb-testvm"]);
  });

  it.each<[string, VMIOptions]>([
    ["LiveMigrate, not migratable", { strategy: "LiveMigrate" }],
    ["LiveMigrate, migratable", { strategy: "LiveMigrate", migratable: true }],
    ["External, migratable", { strategy: "External", migratable: true }],
    ["External, not migratable", { strategy: "External" }],
    ["LiveMigrateIfPossible, migratable", { strategy: "LiveMigrateIfPossible", migratable: true }],
  ])("deletes the budget whatever the eviction strategy wants: %s", async (_case, options) => {
    const vmi = await seedVMI(options);
    await seedPDB(pdbFixture(vmi));
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(env.events).toEqual(["Normal SuccessfulDelete Deleted PodDisruptionBudget pdb-testvm"]);
  });

  it("deletes the budget once the VMI disappears", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate", migratable: true });
    await seedPDB(pdbFixture(vmi));
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(env.events).toEqual(["Normal SuccessfulDelete Deleted PodDisruptionBudget pdb-testvm"]);
  });

  it("deletes the budget of a VMI that never was in the cache", async () => {
    await seedPDB(pdbFixture(testVMI({ strategy: "LiveMigrate" })));
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(env.events).toEqual(["Normal SuccessfulDelete Deleted PodDisruptionBudget pdb-testvm"]);
  });

  it("deletes a budget an earlier VMI of the same name left behind", async () => {
    await seedPDB(pdbFixture(testVMI({ strategy: "LiveMigrate", uid: "1234" })));
    await seedVMI({ strategy: "LiveMigrate", migratable: true, uid: "changed" });
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
  });

  it("creates no budget for a VMI being deleted, nor after it is gone", async () => {
    await seedVMI({ strategy: "LiveMigrate", migratable: true, deleting: true });
    await env.sync();
    env.server.remove(Tables.vmis, "default", "testvm");
    await env.server.settle();
    await env.sync();
    expect(env.server.takeWrites()).toEqual([]);
    expect(env.events).toEqual([]);
  });

  it.each(["Succeeded", "Failed"])("deletes the budget of a VMI in the final phase %s", async (phase) => {
    const vmi = await seedVMI({ strategy: "LiveMigrate", phase });
    await seedPDB(pdbFixture(vmi));
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
  });

  it("deletes the budget an old migration controller raised to two pods", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate", migratable: true });
    const pdb = pdbFixture(vmi, 2, "kubevirt-migration-pdb-testvm");
    await seedPDB({ ...pdb, metadata: { ...pdb.metadata, labels: { "kubevirt.io/migrationName": "mig" } } });
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("kubevirt-migration-pdb-testvm"));
    expect(env.events).toEqual([
      "Normal SuccessfulDelete Deleted PodDisruptionBudget kubevirt-migration-pdb-testvm",
    ]);
  });

  it("deletes every budget the VMI controls, and only those", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate" });
    await seedPDB(pdbFixture(vmi));
    await seedPDB(pdbFixture(vmi, 2, "kubevirt-migration-pdb-testvm"));
    const other = pdbFixture(runningVMIFixture("othervm"));
    await seedPDB(other);
    await seedPDB(ownedDifferently("owned-not-controlled", { controller: false }));
    await seedPDB(ownedDifferently("vm-budget", { kind: "VirtualMachine" }));
    const elsewhere = pdbFixture(vmi, 1, "elsewhere");
    elsewhere.metadata.namespace = "other";
    await seedPDB(elsewhere);
    await env.sync();
    expect(env.server.takeWrites().sort()).toEqual(deleted("kubevirt-migration-pdb-testvm", "pdb-testvm"));
    expect(pdbNames()).toEqual(["elsewhere", "owned-not-controlled", "pdb-othervm", "vm-budget"]);
  });

  it("reports a failed deletion, retries, and deletes on the next sync", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate" });
    await seedPDB(pdbFixture(vmi));
    env.transport.failNth(
      "DELETE",
      "poddisruptionbudgets",
      1,
      new ApiError(500, "InternalError", "etcd is down"),
    );
    await expect(env.sync()).rejects.toThrow("etcd is down");
    expect(env.events).toEqual([
      "Warning FailedDelete Error deleting the PodDisruptionBudget pdb-testvm: etcd is down",
    ]);
    expect(pdbNames()).toEqual(["pdb-testvm"]);
    // The failed deletion is not waited for.
    await env.sync();
    expect(pdbNames()).toEqual([]);
    expect(env.events.at(-1)).toBe("Normal SuccessfulDelete Deleted PodDisruptionBudget pdb-testvm");
  });

  it("deletes once while its cache still shows the deleted budget", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate" });
    await seedPDB(pdbFixture(vmi));
    env.server.hold();
    await env.sync();
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(env.controller.expectations.satisfiedExpectations("default/testvm")).toBe(false);
    env.server.release();
    await env.server.settle();
    expect(env.controller.expectations.satisfiedExpectations("default/testvm")).toBe(true);
    await env.sync();
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("counts a budget held by a finalizer as deleted once it is marked, and does not delete it again", async () => {
    const vmi = await seedVMI({ strategy: "LiveMigrate" });
    const pdb = pdbFixture(vmi);
    await seedPDB({ ...pdb, metadata: { ...pdb.metadata, finalizers: ["example.com/keep"] } });
    await env.sync();
    expect(env.server.takeWrites()).toEqual(deleted("pdb-testvm"));
    expect(env.controller.expectations.satisfiedExpectations("default/testvm")).toBe(true);
    await env.sync();
    expect(env.server.takeWrites()).toEqual([]);
    expect(pdbNames()).toEqual(["pdb-testvm"]);
  });

  it("forgets the expectations of a VMI gone for good once its budgets are", async () => {
    await seedPDB(pdbFixture(testVMI()));
    await env.sync();
    await env.sync();
    expect(env.controller.expectations.expectations.getExpectations("default/testvm")).toBeUndefined();
  });
});

describe("what wakes a VMI", () => {
  beforeEach(() => takeQueued(env.server, env.controller.queue));
  const queued = () => takeQueued(env.server, env.controller.queue);

  it("its own changes", async () => {
    await seedVMI();
    expect(await queued()).toEqual(["default/testvm"]);
  });

  it("a budget it controls showing up, changing or going away", async () => {
    await seedPDB(pdbFixture(testVMI()));
    await seedPDB(pdbFixture(runningVMIFixture("othervm"), 1, "unrelated"));
    await seedPDB(ownedDifferently("vm-budget", { kind: "VirtualMachine" }));
    expect(await queued()).toEqual(["default/testvm", "default/othervm"]);
    env.server.mutate<PodDisruptionBudget>(Tables.pdbs, "default", "pdb-testvm", (pdb) => {
      pdb.metadata = { ...pdb.metadata, labels: { changed: "yes" } };
    });
    expect(await queued()).toEqual(["default/testvm"]);
    env.server.remove(Tables.pdbs, "default", "pdb-testvm");
    expect(await queued()).toEqual(["default/testvm"]);
  });

  it("both owners when a budget changes hands", async () => {
    await seedPDB(pdbFixture(testVMI()));
    await queued();
    env.server.mutate<PodDisruptionBudget>(Tables.pdbs, "default", "pdb-testvm", (pdb) => {
      pdb.metadata = {
        ...pdb.metadata,
        ownerReferences: pdbFixture(runningVMIFixture("othervm")).metadata.ownerReferences,
      };
    });
    expect((await queued()).sort()).toEqual(["default/othervm", "default/testvm"]);
  });

  it("an update of a pod it controls, unless the pod is being deleted", async () => {
    const vmi = testVMI();
    env.server.seed(Tables.pods, sourcePodFixture(vmi));
    expect(await queued()).toEqual([]);
    const podName = "virt-launcher-testvm-src";
    env.server.mutate(Tables.pods, "default", podName, (pod) => {
      pod.metadata = { ...pod.metadata, labels: { ...pod.metadata?.labels, touched: "yes" } };
    });
    expect(await queued()).toEqual(["default/testvm"]);
    env.server.mutate(Tables.pods, "default", podName, (pod) => {
      pod.metadata = { ...pod.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
    expect(await queued()).toEqual([]);
  });

  it("an update of one of its migrations, unless the migration is being deleted", async () => {
    env.server.seed(Tables.migrations, migrationFixture("mig", "testvm"));
    expect(await queued()).toEqual([]);
    env.server.mutate(Tables.migrations, "default", "mig", (migration) => {
      migration.metadata = { ...migration.metadata, labels: { touched: "yes" } };
    });
    expect(await queued()).toEqual(["default/testvm"]);
    env.server.mutate(Tables.migrations, "default", "mig", (migration) => {
      migration.metadata = { ...migration.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
    expect(await queued()).toEqual([]);
  });
});

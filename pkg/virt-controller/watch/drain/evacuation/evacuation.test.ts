import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KubeVirtConfiguration } from "../../../../api/generated/v1.js";
import { ApiError } from "../../../../controller/api-error.js";
import type { StoredVMI } from "../../../../controller/resources.js";
import { takeQueued } from "../../../../controller/testing/controller-harness.js";
import { migrationFixture, runningVMIFixture, sourcePodFixture } from "../../migration/testing.js";
import type { StoredVMIM } from "../../migration/vmim.js";
import type { TaintedNode } from "./evacuation-candidates.js";
import { startEvacuationEnv, Tables, type EvacuationEnv } from "./testing.js";

// The evacuation controller against an in-memory apiserver, as upstream's evacuation_test.go checks it:
// one migration per VMI marked for evacuation (or per VMI of a drain-tainted node), none while one is
// unfinished, within the cluster's and the node's parallel limits, with upstream's events.

let env: EvacuationEnv;
async function start(configuration: KubeVirtConfiguration = {}): Promise<void> {
  env?.stop();
  env = await startEvacuationEnv(configuration);
}
beforeEach(() => start());
afterEach(() => env.stop());

interface VMIOptions {
  strategy?: string;
  migratable?: boolean;
  /** status.evacuationNodeName. */
  evacuating?: string;
  node?: string;
}

/** A running VMI with its launcher pod on its node. */
async function seedVMI(name: string, options: VMIOptions = {}): Promise<StoredVMI> {
  const vmi = runningVMIFixture(name);
  if (options.strategy) vmi.spec.evictionStrategy = options.strategy;
  const status = (vmi.status ??= {});
  status.nodeName = options.node ?? "node01";
  status.conditions = [{ type: "LiveMigratable", status: options.migratable === false ? "False" : "True" }];
  if (options.evacuating) status.evacuationNodeName = options.evacuating;
  const stored = env.server.seed(Tables.vmis, vmi);
  env.server.seed(Tables.pods, sourcePodFixture(stored));
  await env.server.settle();
  return stored;
}

const evacuating = (name: string, options: VMIOptions = {}) =>
  seedVMI(name, { strategy: "LiveMigrate", evacuating: "node01", ...options });

async function seedMigration(name: string, vmiName: string, phase: string): Promise<void> {
  const migration = migrationFixture(name, vmiName);
  migration.status = { phase };
  env.server.seed(Tables.migrations, migration);
  await env.server.settle();
}

/** Someone taints node01 (kubectl taint, or an operator preparing a drain). */
async function taintNode01(spec: TaintedNode["spec"]): Promise<void> {
  env.server.mutate<TaintedNode>(Tables.nodes, "", "node01", (node) => {
    node.spec = spec;
  });
  await env.server.settle();
}

const migrations = () => env.server.list<StoredVMIM>(Tables.migrations);
const createdFor = () =>
  migrations()
    .filter((m) => m.metadata?.annotations?.["kubevirt.io/evacuationMigration"] !== undefined)
    .map((m) => m.spec.vmiName)
    .sort();

describe("the evacuation controller", () => {
  it("creates one migration for a VMI marked for evacuation, as upstream names and annotates it", async () => {
    await evacuating("vmi1");
    await seedVMI("bystander", { strategy: "LiveMigrate" });
    expect(await env.sync()).toBeUndefined();
    const [created, ...rest] = migrations();
    expect(rest).toEqual([]);
    expect(created?.metadata?.name).toMatch(/^kubevirt-evacuation-/);
    expect(created?.metadata?.generateName).toBe("kubevirt-evacuation-");
    expect(created?.metadata?.namespace).toBe("default");
    expect(created?.metadata?.annotations).toEqual({ "kubevirt.io/evacuationMigration": "node01" });
    expect(created?.spec).toEqual({ vmiName: "vmi1" });
    expect(env.events).toEqual([`Normal SuccessfulCreate Created Migration ${created?.metadata?.name}`]);
  });

  it("creates none while the VMI has an unfinished migration", async () => {
    await evacuating("vmi1");
    await env.sync();
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
    await seedVMI("vmi2", { strategy: "LiveMigrate", evacuating: "node01" });
    await seedMigration("manual", "vmi2", "Pending");
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("creates another once the earlier migration failed", async () => {
    await evacuating("vmi1");
    await seedMigration("failed", "vmi1", "Failed");
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("does nothing without marks or a drain taint", async () => {
    await seedVMI("vmi1", { strategy: "LiveMigrate" });
    expect(await env.sync()).toBeUndefined();
    expect(migrations()).toEqual([]);
    expect(env.events).toEqual([]);
  });

  it.each<[string, VMIOptions, KubeVirtConfiguration, boolean]>([
    ["the VMI's LiveMigrate", { strategy: "LiveMigrate" }, {}, true],
    ["the VMI's LiveMigrateIfPossible, migratable", { strategy: "LiveMigrateIfPossible" }, {}, true],
    ["the cluster's LiveMigrate", { strategy: "" }, { evictionStrategy: "LiveMigrate" }, true],
    [
      "the VMI's None over the cluster's LiveMigrate",
      { strategy: "None" },
      { evictionStrategy: "LiveMigrate" },
      false,
    ],
    ["the VMI's External", { strategy: "External" }, {}, false],
    ["no strategy at all", { strategy: "" }, {}, false],
    [
      "the VMI's LiveMigrateIfPossible, not migratable",
      { strategy: "LiveMigrateIfPossible", migratable: false },
      {},
      false,
    ],
  ])(
    "migrates a marked VMI by its eviction strategy: %s",
    async (_case, options, configuration, migrated) => {
      await start(configuration);
      await evacuating("vmi1", options);
      await env.sync();
      expect(createdFor()).toEqual(migrated ? ["vmi1"] : []);
    },
  );

  it("leaves a VMI that already left the node it was marked on", async () => {
    await evacuating("vmi1", { node: "node02" });
    await env.sync("node02");
    expect(migrations()).toEqual([]);
  });

  it("leaves a VMI that is migrating right now", async () => {
    await evacuating("vmi1");
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "vmi1", (vmi) => {
      vmi.status = { ...vmi.status, migrationState: { startTimestamp: "2025-12-31T23:59:00Z" } };
    });
    await env.server.settle();
    await env.sync();
    expect(migrations()).toEqual([]);
  });

  it("waits while the VMI still has two active pods", async () => {
    const vmi = await evacuating("vmi1");
    const second = sourcePodFixture(vmi);
    second.metadata.name = "virt-launcher-vmi1-target";
    env.server.seed(Tables.pods, second);
    await env.server.settle();
    await env.sync();
    expect(migrations()).toEqual([]);
    env.server.mutate(Tables.pods, "default", "virt-launcher-vmi1-target", (pod: typeof second) => {
      pod.status = { ...pod.status, phase: "Succeeded" };
    });
    await env.server.settle();
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("warns about a marked LiveMigrate VMI that is not migratable, and looks again in a minute", async () => {
    await evacuating("vmi1", { migratable: false });
    expect(await env.sync()).toEqual({ requeueAfter: 60_000 });
    expect(migrations()).toEqual([]);
    expect(env.events).toEqual(["Normal FailedCreate VirtualMachineInstance is not migrateable"]);
  });

  it("migrates every LiveMigrate VMI of a node tainted kubevirt.io/drain:NoSchedule", async () => {
    await seedVMI("vmi1", { strategy: "LiveMigrate" });
    await seedVMI("vmi2", { strategy: "LiveMigrate" });
    await seedVMI("none", { strategy: "None" });
    await env.sync();
    expect(migrations()).toEqual([]);
    await taintNode01({ taints: [{ key: "kubevirt.io/drain", value: "draining", effect: "NoSchedule" }] });
    await env.sync();
    expect(createdFor()).toEqual(["vmi1", "vmi2"]);
  });

  it("takes the drain taint key from the migration configuration", async () => {
    await start({ migrations: { nodeDrainTaintKey: "example.com/drain" } });
    await seedVMI("vmi1", { strategy: "LiveMigrate" });
    await taintNode01({ taints: [{ key: "example.com/drain", effect: "NoSchedule" }] });
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("ignores a drain taint with another effect", async () => {
    await seedVMI("vmi1", { strategy: "LiveMigrate" });
    await taintNode01({ taints: [{ key: "kubevirt.io/drain", effect: "NoExecute" }] });
    await env.sync();
    expect(migrations()).toEqual([]);
  });
});

describe("the evacuation controller's limits", () => {
  it("starts none while parallelMigrationsPerCluster migrations run, and looks again in 5 s", async () => {
    await evacuating("vmi1");
    for (let i = 0; i < 5; i++) {
      await seedVMI(`elsewhere${i}`, { node: "node02" });
      await seedMigration(`running${i}`, `elsewhere${i}`, "Running");
    }
    expect(await env.sync()).toEqual({ requeueAfter: 5_000 });
    expect(createdFor()).toEqual([]);
  });

  it("starts another once a running migration finished", async () => {
    await evacuating("vmi1");
    for (let i = 0; i < 5; i++) {
      await seedVMI(`elsewhere${i}`, { node: "node02" });
      await seedMigration(`running${i}`, `elsewhere${i}`, "Running");
    }
    await env.sync();
    env.server.mutate<StoredVMIM>(Tables.migrations, "default", "running0", (m) => {
      m.status = { phase: "Succeeded" };
    });
    await env.server.settle();
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("counts pending migrations as not running", async () => {
    await evacuating("vmi1");
    for (let i = 0; i < 5; i++) {
      await seedVMI(`elsewhere${i}`, { node: "node02" });
      await seedMigration(`pending${i}`, `elsewhere${i}`, "Pending");
    }
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("creates up to parallelOutboundMigrationsPerNode, counting those already leaving the node", async () => {
    for (const name of ["vmi1", "vmi2", "vmi3"]) await evacuating(name);
    await env.sync();
    expect(createdFor()).toHaveLength(2);
    await start();
    for (const name of ["vmi1", "vmi2", "vmi3"]) await evacuating(name);
    await seedVMI("leaving", { strategy: "LiveMigrate" });
    await seedMigration("out", "leaving", "Running");
    await env.sync();
    expect(createdFor()).toHaveLength(1);
  });

  it("follows the configured limits", async () => {
    await start({ migrations: { parallelOutboundMigrationsPerNode: 3, parallelMigrationsPerCluster: 10 } });
    for (const name of ["vmi1", "vmi2", "vmi3", "vmi4"]) await evacuating(name);
    await env.sync();
    expect(createdFor()).toHaveLength(3);
  });

  it("gives warnings only the spots migratable VMIs leave", async () => {
    await evacuating("vmi1");
    await evacuating("stuck1", { migratable: false });
    await evacuating("stuck2", { migratable: false });
    expect(await env.sync()).toBeUndefined();
    expect(createdFor()).toEqual(["vmi1"]);
    expect(env.events.filter((e) => e.includes("not migrateable"))).toHaveLength(1);
  });

  it("leaves the limits to the migration queue with MigrationPriorityQueue, and sets the priority", async () => {
    await start({ developerConfiguration: { featureGates: ["MigrationPriorityQueue"] } });
    for (const name of ["vmi1", "vmi2", "vmi3"]) await evacuating(name);
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "vmi3", (vmi) => {
      (vmi.metadata ??= {}).annotations = {
        ...vmi.metadata.annotations,
        "kubevirt.io/eviction-source": "descheduler",
      };
    });
    await env.server.settle();
    await env.sync();
    const priorities = Object.fromEntries(migrations().map((m) => [m.spec.vmiName, m.spec.priority]));
    expect(priorities).toEqual({
      vmi1: "system-critical",
      vmi2: "system-critical",
      vmi3: "system-maintenance",
    });
  });
});

describe("the evacuation controller's expectations and failures", () => {
  it("creates no duplicate while its cache has not seen its own migration", async () => {
    await evacuating("vmi1");
    env.server.hold();
    await env.controller.execute("node01");
    await env.controller.execute("node01");
    expect(createdFor()).toEqual(["vmi1"]);
    env.server.release();
    await env.server.settle();
    expect(env.controller.expectations.satisfiedExpectations("node01")).toBe(true);
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("reports a failed create, and retries", async () => {
    await evacuating("vmi1");
    env.transport.failNth("POST", "virtualmachineinstancemigrations", 1, new ApiError(500, "", "boom"));
    await expect(env.sync()).rejects.toThrow("boom");
    expect(env.events).toEqual(["Warning FailedCreate Error creating a Migration: boom"]);
    expect(env.controller.expectations.satisfiedExpectations("node01")).toBe(true);
    await env.sync();
    expect(createdFor()).toEqual(["vmi1"]);
  });

  it("forgets a node that is gone", async () => {
    await evacuating("vmi1");
    env.server.remove(Tables.nodes, "", "node01");
    await env.server.settle();
    await env.sync();
    expect(migrations()).toEqual([]);
  });

  it("queues the node of a VMI that changes, and of a migration's VMI", async () => {
    await takeQueued(env.server, env.controller.queue);
    await evacuating("vmi1", { node: "node02" });
    expect(await takeQueued(env.server, env.controller.queue)).toEqual(["node02"]);
    await seedMigration("manual", "vmi1", "Pending");
    expect(await takeQueued(env.server, env.controller.queue)).toEqual(["node02"]);
    env.server.mutate(Tables.nodes, "", "node01", (node: { metadata?: { labels?: object } }) => {
      node.metadata = { ...node.metadata, labels: { changed: "yes" } };
    });
    expect(await takeQueued(env.server, env.controller.queue)).toEqual(["node01"]);
  });
});

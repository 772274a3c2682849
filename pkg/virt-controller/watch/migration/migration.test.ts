import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { StoredVMI } from "../../../controller/resources.js";
import {
  migrationFixture,
  runningVMIFixture,
  sourcePodFixture,
  startMigrationEnv,
  Tables,
  type MigrationEnv,
} from "./testing.js";
import type { StoredMigrationPolicy, StoredVMIM } from "./vmim.js";

// The migration controller against an in-memory apiserver: the target pod it creates, the phases it walks
// as the kubelet and the virt-handlers (played here by mutating stored objects) report, and cancellation,
// failure, limits, policies and garbage collection, as upstream's migration_test.go checks them.

let env: MigrationEnv;
beforeEach(async () => {
  env = await startMigrationEnv();
});
afterEach(() => env.stop());

const migration = (name = "mig") => env.server.get<StoredVMIM>(Tables.migrations, "default", name);
const vmi = (name = "vmi") => env.server.get<StoredVMI>(Tables.vmis, "default", name);
const targetPods = () =>
  env.server.list<Pod>(Tables.pods).filter((pod) => pod.metadata.labels?.["kubevirt.io/migrationJobUID"]);

async function seedRunningVMI(name = "vmi", labels: Record<string, string> = {}): Promise<StoredVMI> {
  const fixture = env.server.seed(Tables.vmis, runningVMIFixture(name, labels));
  env.server.seed(Tables.pods, sourcePodFixture(fixture));
  await env.server.settle();
  return fixture;
}

async function seedMigration(name = "mig", vmiName = "vmi", annotations: Record<string, string> = {}) {
  const created = env.server.seed(Tables.migrations, migrationFixture(name, vmiName, annotations));
  await env.server.settle();
  return created;
}

/** The kubelet binds the target pod to node02 and reports it (ready unless told otherwise). */
async function targetPodRuns(status: Pod["status"] = readyStatus, nodeName = "node02"): Promise<Pod> {
  const pod = targetPods()[0];
  if (!pod) throw new Error("no target pod");
  const changed = env.server.mutate<Pod>(Tables.pods, "default", pod.metadata.name ?? "", (obj) => {
    if (nodeName) obj.spec.nodeName = nodeName;
    obj.status = status;
  });
  await env.server.settle();
  return changed;
}

const readyStatus: Pod["status"] = {
  phase: "Running",
  containerStatuses: [
    { name: "compute", image: "l", imageID: "", ready: false, restartCount: 0, state: { running: {} } },
  ],
};

/** A virt-handler writes into the VMI's migration state. */
async function handlerReports(state: Record<string, unknown>, name = "vmi"): Promise<void> {
  env.server.mutate<StoredVMI>(Tables.vmis, "default", name, (obj) => {
    obj.status = { ...obj.status, migrationState: { ...obj.status?.migrationState, ...state } };
  });
  await env.server.settle();
}

/** Pending → Scheduling → Scheduled → PreparingTarget(handoff) for the migration "mig" of "vmi". */
async function driveToHandoff(): Promise<void> {
  await seedRunningVMI();
  await seedMigration();
  await env.sync(); // Pending
  await env.sync(); // target pod created
  await env.sync(); // Scheduling
  await targetPodRuns();
  await env.sync(); // Scheduled
  await env.sync(); // handoff
}

describe("migration controller: the happy path", () => {
  it("creates the target pod with upstream's labels, annotation and anti-affinity", async () => {
    await seedRunningVMI();
    await seedMigration();
    await env.sync();
    expect(migration()?.status?.phase).toBe("Pending");
    expect(migration()?.status?.migrationState?.sourcePod).toBe("virt-launcher-vmi-src");
    await env.sync();
    const [pod, ...more] = targetPods();
    expect(more).toHaveLength(0);
    expect(pod?.metadata.labels?.["kubevirt.io/migrationJobUID"]).toBe(migration()?.metadata?.uid);
    expect(pod?.metadata.annotations?.["kubevirt.io/migrationJobName"]).toBe("mig");
    expect(pod?.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      {
        labelSelector: { matchLabels: { "kubevirt.io/created-by": "vmi-uid" } },
        topologyKey: "kubernetes.io/hostname",
      },
    ]);
    // The disk container runs the digest the source runs.
    const disk = pod?.spec.containers.find((container) => container.name === "volumecontainerdisk");
    expect(disk?.image).toBe("kubevirt-ts/test-guest@sha256:feed");
    expect(env.events).toContain(
      `Normal SuccessfulCreate Created migration target pod ${pod?.metadata.name ?? ""}`,
    );
    // Expectations: a second sync before anything changes creates nothing more.
    await env.sync();
    expect(targetPods()).toHaveLength(1);
    expect(migration()?.status?.phase).toBe("Scheduling");
  });

  it("hands off to virt-handler, then follows the handlers to Succeeded", async () => {
    await driveToHandoff();
    expect(migration()?.status?.phase).toBe("Scheduled");
    const state = vmi()?.status?.migrationState;
    expect(state).toMatchObject({
      migrationUid: migration()?.metadata?.uid,
      sourceNode: "node01",
      targetNode: "node02",
      targetPod: targetPods()[0]?.metadata.name,
      sourcePod: "virt-launcher-vmi-src",
      migrationConfiguration: { parallelMigrationsPerCluster: 5, allowWorkloadDisruption: false },
    });
    expect(vmi()?.metadata?.labels?.["kubevirt.io/migrationTargetNodeName"]).toBe("node02");
    expect(env.events).toContain(
      "Normal SuccessfulHandOver Migration target pod is ready for preparation by virt-handler.",
    );
    await env.sync();
    expect(migration()?.status?.phase).toBe("PreparingTarget");
    await handlerReports({ targetNodeAddress: "10.244.2.7", targetNodeDomainDetected: false });
    await env.sync();
    expect(migration()?.status?.phase).toBe("TargetReady");
    await handlerReports({ startTimestamp: "2026-01-01T00:00:01Z", mode: "PreCopy" });
    await env.sync();
    expect(migration()?.status?.phase).toBe("Running");
    await handlerReports({ targetNodeDomainReadyTimestamp: "2026-01-01T00:00:03Z" });
    await env.sync();
    expect(targetPods()[0]?.metadata.annotations?.["kubevirt.io/migration-target-ready-timestamp"]).toBe(
      "2026-01-01T00:00:03Z",
    );
    await handlerReports({ completed: true, endTimestamp: "2026-01-01T00:00:04Z" });
    await env.sync();
    const done = migration();
    expect(done?.status?.phase).toBe("Succeeded");
    expect(done?.status?.phaseTransitionTimestamps?.map((stamp) => stamp.phase)).toEqual([
      "Pending",
      "Scheduling",
      "Scheduled",
      "PreparingTarget",
      "TargetReady",
      "Running",
      "Succeeded",
    ]);
    expect(env.events).toContain("Normal SuccessfulMigration Source node reported migration succeeded");
    // Final: the VMI's state is mirrored and the finalizer goes.
    await env.sync();
    expect(migration()?.status?.migrationState?.completed).toBe(true);
    expect(migration()?.metadata?.finalizers ?? []).toEqual([]);
  });

  it("writes the matching MigrationPolicy's configuration and name at the handoff", async () => {
    const policy: StoredMigrationPolicy = {
      apiVersion: "migrations.kubevirt.io/v1alpha1",
      kind: "MigrationPolicy",
      metadata: { name: "fast" },
      spec: {
        selectors: { virtualMachineInstanceSelector: { workload: "db" }, namespaceSelector: { team: "a" } },
        allowAutoConverge: true,
        bandwidthPerMigration: "1Gi",
      },
    };
    env.server.seed(Tables.policies, policy);
    await env.server.settle();
    await seedRunningVMI("vmi", { workload: "db" });
    await seedMigration();
    await env.sync();
    await env.sync();
    await env.sync();
    await targetPodRuns();
    await env.sync();
    await env.sync();
    const state = vmi()?.status?.migrationState;
    expect(state?.migrationPolicyName).toBe("fast");
    expect(state?.migrationConfiguration).toMatchObject({
      allowAutoConverge: true,
      bandwidthPerMigration: "1Gi",
    });
  });
});

describe("migration controller: cancellation and failure", () => {
  it("deleting the migration before the handoff deletes the target pod and fails it", async () => {
    await seedRunningVMI();
    await seedMigration();
    await env.sync();
    await env.sync();
    env.server.mutate<StoredVMIM>(Tables.migrations, "default", "mig", (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
    await env.server.settle();
    await env.sync();
    expect(targetPods().filter((pod) => !pod.metadata.deletionTimestamp)).toHaveLength(0);
    expect(migration()?.status?.phase ?? "Failed").toBe("Failed");
    expect(env.events).toContain("Warning FailedMigration Migration failed due to being canceled");
  });

  it("deleting a running migration sets abortRequested for virt-handler", async () => {
    await driveToHandoff();
    await env.sync();
    await handlerReports({ targetNodeAddress: "10.244.2.7" });
    await env.sync();
    await handlerReports({ startTimestamp: "2026-01-01T00:00:01Z" });
    await env.sync();
    expect(migration()?.status?.phase).toBe("Running");
    env.server.mutate<StoredVMIM>(Tables.migrations, "default", "mig", (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:05Z" };
    });
    await env.server.settle();
    await env.sync();
    expect(vmi()?.status?.migrationState?.abortRequested).toBe(true);
    expect(migration()?.status?.conditions?.map((condition) => condition.type)).toContain(
      "migrationAbortRequested",
    );
    expect(env.events).toContain(
      "Normal SuccessfulAbortMigration Migration is ready to be canceled by virt-handler.",
    );
    // The source reports the abort as a failure: the migration fails and loses its finalizer.
    await handlerReports({ failed: true, completed: true, abortStatus: "Succeeded" });
    await env.sync();
    expect(migration()?.status?.phase).toBe("Failed");
    await env.sync();
    expect(migration()).toBeUndefined();
  });

  it("a target pod that dies before the migration started fails it and marks the VMI", async () => {
    await driveToHandoff();
    await env.sync();
    expect(migration()?.status?.phase).toBe("PreparingTarget");
    await targetPodRuns({ phase: "Failed" });
    await env.sync();
    expect(vmi()?.status?.migrationState).toMatchObject({ failed: true, completed: true });
    expect(migration()?.status?.phase).toBe("Failed");
    expect(env.events).toContain(
      "Warning FailedMigration Migration failed because target pod shutdown during migration",
    );
  });

  it("an unschedulable target pod is deleted after the timeout, which fails the migration", async () => {
    await seedRunningVMI();
    await seedMigration("mig", "vmi", { "kubevirt.io/migrationUnschedulablePodTimeoutSeconds": "60" });
    await env.sync();
    await env.sync();
    await targetPodRuns(
      {
        phase: "Pending",
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/2 nodes are available",
          },
        ],
      },
      "",
    );
    await env.sync();
    expect(migration()?.status?.phase).toBe("Scheduling");
    expect(env.events).toContain(
      "Warning migrationTargetPodUnschedulable Migration target pod for VMI [default/vmi] is currently unschedulable.",
    );
    const created = Date.parse(targetPods()[0]?.metadata.creationTimestamp ?? "");
    const podName = targetPods()[0]?.metadata.name ?? "";
    env.server.now = () => created + 61_000;
    await env.sync();
    expect(targetPods()).toHaveLength(0);
    expect(env.events).toContain(
      `Normal SuccessfulDelete unschedulable pod default/${podName} timeout period exceeded`,
    );
    await env.sync();
    expect(migration()?.status?.phase).toBe("Failed");
  });

  it("a second migration of a VMI held by a running one fails", async () => {
    await driveToHandoff();
    await seedMigration("second");
    // Upstream's sync refuses it (and is retried), after the status said why.
    await expect(env.sync("second")).rejects.toThrow(
      "vmi is ineligible for migration because another migration job is running",
    );
    await env.server.settle();
    expect(migration("second")?.status?.phase).toBe("Failed");
    expect(env.events).toContain(
      "Warning FailedMigration VMI is not eligible for migration because another migration job is in progress.",
    );
  });
});

describe("migration controller: limits and garbage collection", () => {
  it("holds a migration back while its node already has two outbound migrations", async () => {
    for (const name of ["a", "b", "c"]) {
      await seedRunningVMI(name);
      await seedMigration(name, name);
      await env.sync(name);
    }
    await env.sync("a");
    await env.sync("b");
    await env.sync("c");
    expect(
      targetPods()
        .map((pod) => pod.metadata.labels?.["kubevirt.io/created-by"])
        .sort(),
    ).toEqual(["a-uid", "b-uid"]);
  });

  it("holds migrations back at parallelMigrationsPerCluster", async () => {
    env.stop();
    env = await startMigrationEnv({ migrations: { parallelMigrationsPerCluster: 1 } });
    for (const name of ["a", "b"]) {
      await seedRunningVMI(name);
      await seedMigration(name, name);
      await env.sync(name);
      await env.sync(name);
    }
    expect(targetPods()).toHaveLength(1);
  });

  it("keeps only the five newest finished migrations of a VMI", async () => {
    await seedRunningVMI();
    for (let index = 0; index < 7; index++) {
      const fixture = migrationFixture(`old-${index}`);
      fixture.metadata = {
        ...fixture.metadata,
        creationTimestamp: `2025-01-0${index + 1}T00:00:00Z`,
        finalizers: [],
      };
      fixture.status = { phase: "Succeeded" };
      env.server.seed(Tables.migrations, fixture);
    }
    await env.server.settle();
    await env.sync("old-6");
    const left = env.server
      .list<StoredVMIM>(Tables.migrations)
      .map((item) => item.metadata?.name)
      .sort();
    expect(left).toEqual(["old-2", "old-3", "old-4", "old-5", "old-6"]);
  });

  it("deletes a migration whose VMI does not exist", async () => {
    await seedMigration("orphan", "missing");
    await env.sync("orphan");
    expect(migration("orphan")?.metadata?.deletionTimestamp).toBeDefined();
  });
});

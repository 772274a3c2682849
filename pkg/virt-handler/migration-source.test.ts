import { rmSync } from "node:fs";
// The migration source controller step by step, as upstream's migration-source_test.go: wait for the
// target's ports, migrate with the right options, follow the launcher's progress, abort, failure, and the
// 60 s wait for the target to report the domain.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { silentLogger, type Clock } from "../controller/index.js";
import type { DomainObject, MigrationMetadata } from "../virt-launcher/virtwrap/api/domain-object.js";
import { MigrationSourceController } from "./migration-source.js";
import { FakeLauncher } from "./testing/fake-launcher-commands.js";
import { FakeProxy } from "./testing/fake-proxy.js";
import { FakeVMIs } from "./testing/fake-vmis.js";
import { fakeLauncherPodRoot } from "./testing/pod-root.js";

// Paths in the pod resolve inside it: /var/run is the image's symlink to /run.
const POD_ROOT = fakeLauncherPodRoot();
afterAll(() => rmSync(POD_ROOT, { recursive: true, force: true }));

const KEY = "default/testvmi";
const PORTS = { "40000": 0, "40001": 49152 };

function migratingVMI(): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default", uid: "vmi-uid", resourceVersion: "3" },
    spec: { domain: { devices: {} } },
    status: {
      phase: "Running",
      nodeName: "node01",
      activePods: { "source-pod": "node01", "target-pod": "node02" },
      migrationState: { migrationUid: "mig-uid", sourceNode: "node01", targetNode: "node02" },
    },
  } as VirtualMachineInstance;
}

function runningDomain(migration?: MigrationMetadata): DomainObject {
  return {
    objectMeta: { name: "default_testvmi", namespace: "default" },
    spec: { devices: {}, metadata: { kubeVirt: { uid: "vmi-uid", migration } } },
    status: { status: "Running", reason: "Unknown" },
  } as unknown as DomainObject;
}

describe("migration source controller", () => {
  let now: number;
  let vmis: FakeVMIs;
  let launcher: FakeLauncher;
  let proxy: FakeProxy;
  let updates: VirtualMachineInstance[];
  let events: string[];
  let controller: MigrationSourceController;
  let current: VirtualMachineInstance;
  let clusterMigrations: object | undefined;

  const state = () => current.status!.migrationState!;
  const publishPorts = () => {
    current = structuredClone(current);
    state().targetNodeAddress = "10.244.2.1";
    state().targetDirectMigrationNodePorts = PORTS;
    vmis.objects.set(KEY, current);
  };

  beforeEach(() => {
    now = Date.parse("2026-11-30T12:00:00Z");
    const clock: Clock = { now: () => now, sleep: async () => undefined };
    vmis = new FakeVMIs();
    launcher = new FakeLauncher();
    launcher.domain = runningDomain();
    proxy = new FakeProxy();
    updates = [];
    events = [];
    clusterMigrations = undefined;
    controller = new MigrationSourceController({
      host: "node01",
      vmis,
      launchers: async () => launcher,
      updateVMI: async (vmi) => {
        updates.push(vmi);
        current = structuredClone(vmi);
        vmis.objects.set(KEY, current);
      },
      podRoot: async () => POD_ROOT,
      proxy,
      migrationConfiguration: () => clusterMigrations,
      recorder: { event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
      logger: silentLogger,
      clock,
    });
    current = migratingVMI();
    vmis.set(current);
  });

  it("waits for the target's ports before migrating", async () => {
    expect(await controller.sync(KEY)).toEqual({ requeueAfter: 1000 });
    expect(launcher.calls).toEqual([]);
    expect(proxy.sources.size).toBe(0);
  });

  it("ignores a VMI whose migration's source is another node", async () => {
    publishPorts();
    state().sourceNode = "node03";
    await controller.sync(KEY);
    expect(launcher.calls).toEqual([]);
  });

  it("opens the source proxy in the pod's share dir and migrates with the cluster's options", async () => {
    publishPorts();
    await controller.sync(KEY);
    expect(proxy.sources.get("vmi-uid")).toEqual({
      address: "10.244.2.1",
      ports: PORTS,
      baseDir: `${POD_ROOT}/run/kubevirt`,
    });
    expect(launcher.migrations).toEqual([
      {
        Bandwidth: "0",
        ProgressTimeout: 150,
        CompletionTimeoutPerGiB: 150,
        UnsafeMigration: false,
        AllowAutoConverge: false,
        AllowPostCopy: false,
        AllowWorkloadDisruption: false,
        ParallelMigrationThreads: 8,
      },
    ]);
    expect(events).toEqual(["Normal Migrating VirtualMachineInstance is migrating."]);
    expect(updates).toEqual([]);
  });

  it("prefers the migration's own configuration; post-copy allows disruption and no multifd", async () => {
    clusterMigrations = { progressTimeout: 1 };
    publishPorts();
    state().migrationConfiguration = {
      allowPostCopy: true,
      bandwidthPerMigration: "64Mi",
      progressTimeout: 300,
    };
    await controller.sync(KEY);
    expect(launcher.migrations[0]).toEqual({
      Bandwidth: "64Mi",
      ProgressTimeout: 300,
      CompletionTimeoutPerGiB: 150,
      UnsafeMigration: false,
      AllowAutoConverge: false,
      AllowPostCopy: true,
      AllowWorkloadDisruption: true,
    });
  });

  it("gives a CPU-limited VMI no parallel migration threads", async () => {
    publishPorts();
    current.spec.domain.resources = { limits: { cpu: "2" } };
    await controller.sync(KEY);
    expect(launcher.migrations[0]).not.toHaveProperty("ParallelMigrationThreads");
  });

  it("does not migrate again while the launcher's migration runs, and copies its progress", async () => {
    publishPorts();
    launcher.domain = runningDomain({
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:50Z",
      mode: "PreCopy",
    });
    await controller.sync(KEY);
    expect(launcher.calls).toEqual([]);
    expect(state()).toMatchObject({ startTimestamp: "2026-11-30T11:59:50Z", failed: false, mode: "PreCopy" });
  });

  it("ignores progress of another migration", async () => {
    publishPorts();
    launcher.domain = runningDomain({ uid: "older", startTimestamp: "2026-11-30T11:00:00Z" });
    await controller.sync(KEY);
    expect(state().startTimestamp).toBeUndefined();
  });

  it("reports the launcher's failure with upstream's event, then stops the source listener", async () => {
    publishPorts();
    await controller.sync(KEY);
    launcher.domain = runningDomain({
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:50Z",
      endTimestamp: "2026-11-30T11:59:59Z",
      failed: true,
      failureReason: "Live migration failed: connection reset",
    });
    await controller.sync(KEY);
    expect(state()).toMatchObject({
      failed: true,
      endTimestamp: "2026-11-30T11:59:59Z",
      failureReason: "Live migration failed: connection reset",
    });
    expect(events).toContain(
      "Warning Migrated VirtualMachineInstance migration uid mig-uid failed. reason:Live migration failed: connection reset",
    );
    // The controller concludes it; once done the source proxy goes.
    current = structuredClone(current);
    state().completed = true;
    vmis.objects.set(KEY, current);
    await controller.sync(KEY);
    expect(proxy.stopped).toEqual(["source vmi-uid"]);
  });

  it("cancels once on abortRequested and records the abort's outcome", async () => {
    publishPorts();
    state().startTimestamp = "2026-11-30T11:59:50Z";
    state().abortRequested = true;
    await controller.sync(KEY);
    expect(launcher.calls).toEqual(["CancelMigration"]);
    expect(events).toEqual(["Normal Migrating VirtualMachineInstance is aborting migration."]);

    launcher.domain = runningDomain({
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:50Z",
      abortStatus: "Aborting",
    });
    await controller.sync(KEY);
    expect(state().abortStatus).toBe("Aborting");
    // Once the launcher says it is aborting, no further cancel.
    const cancels = launcher.calls.length;
    await controller.sync(KEY);
    expect(launcher.calls).toHaveLength(cancels);

    launcher.domain = runningDomain({
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:50Z",
      endTimestamp: "2026-11-30T11:59:58Z",
      abortStatus: "Succeeded",
    });
    await controller.sync(KEY);
    expect(state()).toMatchObject({ abortStatus: "Succeeded", endTimestamp: "2026-11-30T11:59:58Z" });
  });

  it("a failed cancel is SyncFailed and retried", async () => {
    publishPorts();
    state().abortRequested = true;
    launcher.failNext = new Error("vmi is not migrating");
    await expect(controller.sync(KEY)).rejects.toThrow("vmi is not migrating");
    expect(events).toEqual(["Warning SyncFailed vmi is not migrating"]);
  });

  it("fails the VMI when the target does not report the domain within 60 s of the end", async () => {
    publishPorts();
    state().startTimestamp = "2026-11-30T11:59:00Z";
    state().endTimestamp = "2026-11-30T11:59:40Z";
    launcher.domain = {
      ...runningDomain(),
      status: { status: "Shutoff", reason: "Migrated" },
    } as DomainObject;
    // 20 s after the end: 40 s left, looked at again then.
    expect(await controller.sync(KEY)).toEqual({ requeueAfter: 40_000 });
    expect(current.status!.phase).toBe("Running");

    now = Date.parse("2026-11-30T12:00:41Z");
    await controller.sync(KEY);
    expect(current.status!.phase).toBe("Failed");
    expect(state()).toMatchObject({ completed: true, failed: true, endTimestamp: "2026-11-30T11:59:40Z" });
    expect(events).toContain(
      "Warning Migrated The VirtualMachineInstance's domain was never observed on the target after the migration completed within the timeout period.",
    );
  });

  it("does not time out once the target reported the running domain", async () => {
    publishPorts();
    state().endTimestamp = "2026-11-30T11:50:00Z";
    state().targetNodeDomainDetected = true;
    state().targetNodeDomainReadyTimestamp = "2026-11-30T11:50:01Z";
    launcher.domain = {
      ...runningDomain(),
      status: { status: "Shutoff", reason: "Migrated" },
    } as DomainObject;
    await controller.sync(KEY);
    expect(current.status!.phase).toBe("Running");
  });

  it("fails a migration without a target node", async () => {
    publishPorts();
    delete state().targetNode;
    await controller.sync(KEY);
    expect(current.status!.phase).toBe("Failed");
    expect(events).toContain("Warning Migrated The VirtualMachineInstance migrated to unknown host.");
  });

  it("stops the source listener when the VMI moved away (left this node's cache)", async () => {
    publishPorts();
    await controller.sync(KEY);
    vmis.remove(current);
    await controller.sync(KEY);
    expect(proxy.stopped).toEqual(["source vmi-uid"]);
  });
});

import { rmSync } from "node:fs";
// The migration target controller step by step, as upstream's migration-target_test.go walks it: prepare,
// publish the listener, see the domain arrive, take the VMI over, finalize and clean up; and a failure.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { silentLogger, type Clock } from "../controller/index.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { MigrationTargetController } from "./migration-target.js";
import { FakeLauncher } from "./testing/fake-launcher-commands.js";
import { FakeProxy } from "./testing/fake-proxy.js";
import { FakeVMIs } from "./testing/fake-vmis.js";
import { fakeLauncherPodRoot } from "./testing/pod-root.js";

// Paths in the pod resolve inside it: /var/run is the image's symlink to /run.
const POD_ROOT = fakeLauncherPodRoot();
afterAll(() => rmSync(POD_ROOT, { recursive: true, force: true }));

const NOW = Date.parse("2026-11-30T12:00:00Z");
const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const KEY = "default/testvmi";

function migratingVMI(): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name: "testvmi",
      namespace: "default",
      uid: "vmi-uid",
      resourceVersion: "7",
      labels: { "kubevirt.io/nodeName": "node01", "kubevirt.io/migrationTargetNodeName": "node02" },
    },
    spec: { domain: { devices: {} } },
    status: {
      phase: "Running",
      nodeName: "node01",
      activePods: { "source-pod": "node01", "target-pod": "node02" },
      migrationState: {
        migrationUid: "mig-uid",
        sourceNode: "node01",
        targetNode: "node02",
        targetPod: "virt-launcher-testvmi-target",
        targetState: {},
      },
    },
  } as VirtualMachineInstance;
}

function domain(status: string, reason: string, migration?: object): DomainObject {
  return {
    objectMeta: { name: "default_testvmi", namespace: "default" },
    spec: { devices: {}, metadata: { kubeVirt: { uid: "vmi-uid", migration } } },
    status: { status, reason },
  } as unknown as DomainObject;
}

describe("migration target controller", () => {
  let vmis: FakeVMIs;
  let launcher: FakeLauncher;
  let proxy: FakeProxy;
  let updates: VirtualMachineInstance[];
  let events: string[];
  let controller: MigrationTargetController;
  let current: VirtualMachineInstance;

  const writeBack = async (vmi: VirtualMachineInstance) => {
    updates.push(vmi);
    current = structuredClone(vmi);
    vmis.objects.set(KEY, current);
  };

  beforeEach(() => {
    vmis = new FakeVMIs();
    launcher = new FakeLauncher();
    proxy = new FakeProxy();
    updates = [];
    events = [];
    controller = new MigrationTargetController({
      host: "node02",
      vmis,
      launchers: async () => launcher,
      updateVMI: writeBack,
      podRoot: async () => POD_ROOT,
      proxy,
      migrationIpAddress: "10.244.2.1",
      containerDisks: {
        mountAndVerify: async () => void launcher.calls.push("MountContainerDisks"),
        unmount: async () => void launcher.calls.push("UnmountContainerDisks"),
      },
      network: {
        setup: async () => void launcher.calls.push("NetworkSetup"),
        teardown: async () => void launcher.calls.push("NetworkTeardown"),
      },
      notifyPipes: { ensure: async () => void launcher.calls.push("NotifyPipe") },
      recorder: { event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
      logger: silentLogger,
      clock,
    });
    current = migratingVMI();
    vmis.set(current);
  });

  it("ignores a VMI whose migration targets another node", async () => {
    const other = migratingVMI();
    other.metadata!.labels!["kubevirt.io/migrationTargetNodeName"] = "node03";
    vmis.objects.set(KEY, other);
    await controller.sync(KEY);
    expect(launcher.calls).toEqual([]);
    expect(updates).toEqual([]);
  });

  it("prepares disks and network before SyncMigrationTarget, then listens on the pod's sockets and publishes the ports", async () => {
    // Looked at again while the migration runs, besides the domain events the pipe brings.
    expect(await controller.sync(KEY)).toEqual({ requeueAfter: 5_000 });
    expect(launcher.calls).toEqual([
      "NotifyPipe",
      "MountContainerDisks",
      "NetworkSetup",
      "SyncMigrationTarget",
    ]);
    expect(proxy.targets.get("vmi-uid")).toEqual([
      `${POD_ROOT}/run/libvirt/libvirt-sock`,
      `${POD_ROOT}/run/kubevirt/migrationproxy/vmi-uid-49152-source.sock`,
    ]);
    const ms = current.status!.migrationState!;
    expect(ms.targetNodeAddress).toBe("10.244.2.1");
    expect(ms.targetDirectMigrationNodePorts).toEqual({ "40000": 0, "40001": 49152 });
    expect(ms.targetState).toEqual({
      nodeAddress: "10.244.2.1",
      directMigrationNodePorts: { "40000": 0, "40001": 49152 },
    });
    expect(updates[0]!.metadata!.resourceVersion).toBe("7");
    expect(events).toEqual([
      "Normal PreparingTarget VirtualMachineInstance Migration Target Prepared.",
      "Normal PreparingTarget Migration Target is listening at 10.244.2.1, on ports: 40000,40001",
    ]);
    // Prepared once: a second look changes nothing.
    await controller.sync(KEY);
    expect(launcher.calls.filter((call) => call !== "NotifyPipe")).toHaveLength(3);
    expect(updates).toHaveLength(1);
  });

  it("listens for the block stream too for a block migration", async () => {
    current.status!.migrationMethod = "BlockMigration";
    await controller.sync(KEY);
    expect(proxy.targets.get("vmi-uid")).toHaveLength(3);
    expect(proxy.targets.get("vmi-uid")![2]).toMatch(/vmi-uid-49153-source\.sock$/);
  });

  it("reports a failed SyncMigrationTarget as SyncFailed and retries", async () => {
    launcher.failNext = new Error("boom");
    await expect(controller.sync(KEY)).rejects.toThrow("syncing migration target failed: boom");
    expect(events).toContain("Warning SyncFailed syncing migration target failed: boom");
    expect(proxy.targets.size).toBe(0);
  });

  it("waits for the launcher of the target pod", async () => {
    controller = new MigrationTargetController({
      host: "node02",
      vmis,
      launchers: async () => undefined,
      updateVMI: writeBack,
      podRoot: async () => POD_ROOT,
      proxy,
      migrationIpAddress: "10.244.2.1",
      logger: silentLogger,
      clock,
    });
    expect(await controller.sync(KEY)).toEqual({ requeueAfter: 1000 });
    expect(updates).toEqual([]);
  });

  it("records the incoming domain, then its readiness, dropping MigrationRequired", async () => {
    await controller.sync(KEY);
    current.status!.conditions = [{ type: "MigrationRequired", status: "True" }];
    current.status!.migrationState!.startTimestamp = "2026-11-30T11:59:00Z";
    launcher.domain = domain("Paused", "StartingUp", {
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:00Z",
    });
    await controller.sync(KEY);
    expect(current.status!.migrationState!.targetNodeDomainDetected).toBe(true);
    expect(current.status!.migrationState!.targetState!.domainDetected).toBe(true);
    expect(current.status!.migrationState!.targetNodeDomainReadyTimestamp).toBeUndefined();

    launcher.domain = domain("Running", "Migrated", {
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:00Z",
    });
    await controller.sync(KEY);
    expect(current.status!.migrationState!.targetNodeDomainReadyTimestamp).toBe("2026-11-30T12:00:00Z");
    expect(current.status!.migrationState!.targetState!.domainReadyTimestamp).toBe("2026-11-30T12:00:00Z");
    expect(current.status!.conditions).toEqual([]);
  });

  it("takes the VMI over once the migration ended, finalizes it, and lets go of it", async () => {
    current.metadata!.annotations = {
      "kubevirt.io/eviction-source": "node01",
      "kubevirt.io/create-migration-target": "x",
    };
    current.status!.evacuationNodeName = "node01";
    await controller.sync(KEY);
    const ended = {
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:00Z",
      endTimestamp: "2026-11-30T11:59:30Z",
    };
    launcher.domain = domain("Running", "Migrated", ended);

    // Ack: this node owns the VMI now.
    await controller.sync(KEY);
    expect(current.status!.nodeName).toBe("node02");
    expect(current.metadata!.labels!["kubevirt.io/nodeName"]).toBe("node02");
    expect(current.metadata!.annotations).toEqual({ "kubevirt.io/create-migration-target": "x" });
    expect(current.status!.evacuationNodeName).toBeUndefined();
    expect(current.status!.migrationTransport).toBe("Unix");
    expect(current.status!.migrationState).toMatchObject({
      startTimestamp: "2026-11-30T11:59:00Z",
      endTimestamp: "2026-11-30T11:59:30Z",
    });
    expect(current.status!.migrationState!.completed).toBeUndefined();
    expect(events).toContain("Normal Migrated The VirtualMachineInstance migrated to node node02.");

    // Finalize: the launcher concludes, the migration is completed.
    await controller.sync(KEY);
    expect(launcher.calls.filter((c) => c === "FinalizeMigration")).toHaveLength(1);
    expect(current.status!.migrationState!.completed).toBe(true);

    // Final cleanup: listener stopped, target label and annotation gone.
    await controller.sync(KEY);
    expect(launcher.calls.filter((c) => c === "FinalizeMigration")).toHaveLength(2);
    expect(proxy.stopped).toEqual(["target vmi-uid"]);
    expect(current.metadata!.labels!["kubevirt.io/migrationTargetNodeName"]).toBeUndefined();
    expect(current.metadata!.annotations).toEqual({});
    expect(launcher.calls).not.toContain("NetworkTeardown");
  });

  it("marks the migration failed when it ended without a running domain here, and tears the target down", async () => {
    await controller.sync(KEY);
    launcher.domain = domain("Paused", "Migration", {
      uid: "mig-uid",
      startTimestamp: "2026-11-30T11:59:00Z",
      endTimestamp: "2026-11-30T11:59:30Z",
    });
    await controller.sync(KEY);
    expect(current.status!.migrationState).toMatchObject({ failed: true, completed: true });
    expect(current.status!.nodeName).toBe("node01");

    await controller.sync(KEY);
    expect(launcher.calls).toEqual(
      expect.arrayContaining(["SignalTargetPodCleanup", "UnmountContainerDisks", "NetworkTeardown"]),
    );
    expect(launcher.calls).not.toContain("FinalizeMigration");
    expect(proxy.stopped).toEqual(["target vmi-uid"]);
    expect(current.metadata!.labels!["kubevirt.io/migrationTargetNodeName"]).toBeUndefined();
  });

  it("tears the target down even when the target launcher cannot be told to exit", async () => {
    await controller.sync(KEY);
    current = structuredClone(current);
    Object.assign(current.status!.migrationState!, {
      failed: true,
      completed: true,
      endTimestamp: "2026-11-30T11:59:30Z",
    });
    vmis.objects.set(KEY, current);
    launcher.failNext = new Error("launcher is gone");
    await controller.sync(KEY);
    expect(launcher.calls).toEqual(
      expect.arrayContaining(["SignalTargetPodCleanup", "UnmountContainerDisks", "NetworkTeardown"]),
    );
    expect(current.metadata!.labels!["kubevirt.io/migrationTargetNodeName"]).toBeUndefined();
  });

  it("cleans up what it prepared when the VMI is final", async () => {
    await controller.sync(KEY);
    current = structuredClone(current);
    current.status!.phase = "Failed";
    vmis.objects.set(KEY, current);
    await controller.sync(KEY);
    expect(launcher.calls).toEqual(expect.arrayContaining(["UnmountContainerDisks", "NetworkTeardown"]));
    expect(proxy.targets.size).toBe(0);
  });
});

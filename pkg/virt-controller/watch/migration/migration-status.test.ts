import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { computeMigrationStatus, type MigrationStatusInput } from "./migration-status.js";
import type { StoredVMIM } from "./vmim.js";

const now = Date.parse("2026-01-01T00:00:00Z");
const at = "2026-01-01T00:00:00Z";

function migration(phase: string, extra: Partial<NonNullable<StoredVMIM["metadata"]>> = {}): StoredVMIM {
  return {
    metadata: { name: "m", namespace: "default", uid: "mig-uid", ...extra },
    spec: { vmiName: "vmi" },
    status: phase === "" ? {} : { phase },
  };
}

function vmi(state?: NonNullable<VirtualMachineInstance["status"]>["migrationState"], phase = "Running") {
  return {
    metadata: { name: "vmi", namespace: "default", uid: "vmi-uid" },
    spec: { domain: { devices: {} } },
    status: { phase, nodeName: "node01", ...(state ? { migrationState: state } : {}) },
  } as VirtualMachineInstance;
}

const readyPod = {
  metadata: { name: "target", namespace: "default" },
  spec: { containers: [], nodeName: "node02" },
  status: { phase: "Running", containerStatuses: [{ name: "compute", state: { running: {} } }] },
} as unknown as Pod;
const pendingPod = { ...readyPod, status: { phase: "Pending" } } as Pod;
const downPod = { ...readyPod, status: { phase: "Failed" } } as Pod;
const sourcePod = { metadata: { name: "source" }, spec: { containers: [] } } as unknown as Pod;

const ours = { migrationUid: "mig-uid", targetNode: "node02", sourceNode: "node01" };

function run(overrides: Partial<MigrationStatusInput>) {
  return computeMigrationStatus({
    migration: migration(""),
    vmi: vmi(),
    targetPod: undefined,
    attachmentPod: undefined,
    sourcePod,
    canMigrate: true,
    handedOff: false,
    syncError: undefined,
    now,
    ...overrides,
  });
}

describe("computeMigrationStatus: one phase step from what is observed", () => {
  it.each([
    { case: "a new migration is Pending", input: {}, phase: "Pending" },
    { case: "another migration holds the VMI", input: { canMigrate: false }, phase: "Failed" },
    {
      case: "Pending without a target pod stays",
      input: { migration: migration("Pending") },
      phase: "Pending",
    },
    {
      case: "Pending → Scheduling once the target pod exists",
      input: { migration: migration("Pending"), targetPod: pendingPod },
      phase: "Scheduling",
    },
    {
      case: "Scheduling waits for a ready pod",
      input: { migration: migration("Scheduling"), targetPod: pendingPod },
      phase: "Scheduling",
    },
    {
      case: "Scheduling → Scheduled once the target pod is ready",
      input: { migration: migration("Scheduling"), targetPod: readyPod },
      phase: "Scheduled",
    },
    {
      case: "Scheduled → PreparingTarget once the handoff shows on the VMI",
      input: { migration: migration("Scheduled"), targetPod: readyPod, vmi: vmi(ours) },
      phase: "PreparingTarget",
    },
    {
      case: "PreparingTarget waits for the target's address",
      input: { migration: migration("PreparingTarget"), targetPod: readyPod, vmi: vmi(ours) },
      phase: "PreparingTarget",
    },
    {
      case: "PreparingTarget → TargetReady with targetNodeAddress",
      input: {
        migration: migration("PreparingTarget"),
        targetPod: readyPod,
        vmi: vmi({ ...ours, targetNodeAddress: "10.244.2.5" }),
      },
      phase: "TargetReady",
    },
    {
      case: "TargetReady → Running with startTimestamp",
      input: {
        migration: migration("TargetReady"),
        targetPod: readyPod,
        vmi: vmi({ ...ours, startTimestamp: at }),
      },
      phase: "Running",
    },
    {
      case: "Running → Succeeded when the source reports completed",
      input: { migration: migration("Running"), targetPod: readyPod, vmi: vmi({ ...ours, completed: true }) },
      phase: "Succeeded",
    },
    {
      case: "the source reports failed",
      input: { migration: migration("Running"), targetPod: readyPod, vmi: vmi({ ...ours, failed: true }) },
      phase: "Failed",
    },
    {
      case: "the VMI went down",
      input: { migration: migration("Scheduling"), targetPod: readyPod, vmi: vmi(undefined, "Failed") },
      phase: "Failed",
    },
    {
      case: "the target pod went down",
      input: { migration: migration("Running"), targetPod: downPod, vmi: vmi(ours) },
      phase: "Failed",
    },
    {
      case: "the target pod disappeared",
      input: { migration: migration("Scheduled"), vmi: vmi() },
      phase: "Failed",
    },
    {
      case: "the VMI's migration state was cleared after the handoff",
      input: { migration: migration("Running"), targetPod: readyPod, vmi: vmi() },
      phase: "Failed",
    },
    {
      case: "another migration took the VMI's migration state over",
      input: { migration: migration("Running"), targetPod: readyPod, vmi: vmi({ migrationUid: "other" }) },
      phase: "Failed",
    },
  ])("$case", ({ input, phase }) => {
    expect(run(input).status.phase).toBe(phase);
  });

  it("stamps each phase entered once and records the source pod while Pending", () => {
    const { status } = run({});
    expect(status.phaseTransitionTimestamps).toEqual([{ phase: "Pending", phaseTransitionTimestamp: at }]);
    expect(status.migrationState?.sourcePod).toBe("source");
  });

  it("a migration deleted before the handoff fails with AbortRequested", () => {
    const result = run({
      migration: migration("Scheduling", { deletionTimestamp: at }),
      targetPod: pendingPod,
    });
    expect(result.status.phase).toBe("Failed");
    expect(result.status.conditions).toEqual([
      { type: "migrationAbortRequested", status: "True", lastProbeTime: at },
    ]);
    expect(result.events).toEqual([
      { type: "Warning", reason: "FailedMigration", message: "Migration failed due to being canceled" },
    ]);
  });

  it("a migration deleted after the handoff only asks for the abort", () => {
    const result = run({
      migration: migration("Running", { deletionTimestamp: at }),
      targetPod: readyPod,
      vmi: vmi({ ...ours, startTimestamp: at }),
      handedOff: true,
    });
    expect(result.status.phase).toBe("Running");
    expect(result.status.conditions?.map((condition) => condition.type)).toEqual(["migrationAbortRequested"]);
  });

  it("a final migration keeps the VMI's last migration state and loses its finalizer", () => {
    const state = { ...ours, completed: true, endTimestamp: at };
    const result = run({ migration: migration("Succeeded"), targetPod: readyPod, vmi: vmi(state) });
    expect(result.removeFinalizer).toBe(true);
    expect(result.status.migrationState).toEqual(state);
  });

  it("a quota refusal shows as a condition until the pod exists", () => {
    const refused = run({
      migration: migration("Pending"),
      syncError: new Error("pods is forbidden: exceeded quota"),
    });
    expect(refused.status.conditions?.[0]?.type).toBe("migrationRejectedByResourceQuota");
    const later = {
      ...migration("Scheduling"),
      status: { phase: "Scheduling", conditions: refused.status.conditions },
    };
    expect(run({ migration: later, targetPod: pendingPod }).status.conditions).toBeUndefined();
  });

  it("hot CPU changes still settling hold Succeeded back", () => {
    const settling = vmi({ ...ours, completed: true });
    settling.status = { ...settling.status, conditions: [{ type: "HotVCPUChange", status: "True" }] };
    expect(run({ migration: migration("Running"), targetPod: readyPod, vmi: settling }).status.phase).toBe(
      "Running",
    );
  });
});

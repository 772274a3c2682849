import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { SyncError } from "../../../controller/sync-error.js";
import { computeVMStatus, startBackoffSeconds, type VMStatusInput } from "./vm-status.js";

// upstream's updateStatus and setPrintableStatus, as a table.

const now = Date.parse("2026-01-01T00:00:00Z");
const vm = (
  spec: Partial<VirtualMachine["spec"]> = { runStrategy: "Always" },
  extra: Partial<VirtualMachine> = {},
): VirtualMachine => ({
  metadata: { name: "vm", uid: "vm-uid", generation: 3 },
  spec: { template: { spec: { domain: { devices: {} } } }, ...spec },
  ...extra,
});
/** A VM whose template uses the claim `data`. */
const withClaim = (spec: Partial<VirtualMachine["spec"]>): VirtualMachine => ({
  ...vm(spec, { metadata: { name: "vm", namespace: "default", uid: "vm-uid", generation: 3 } }),
  spec: {
    ...spec,
    template: {
      spec: {
        domain: { devices: {} },
        volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }],
      },
    },
  },
});
/** The claim `data`, Pending (a WaitForFirstConsumer claim before its Pod is scheduled). */
const pendingClaim: PVCLookup = (namespace, name) =>
  namespace === "default" && name === "data"
    ? { metadata: { name, namespace }, spec: {}, status: { phase: "Pending" } }
    : undefined;
function vmi(
  phase: string,
  conditions: Array<{ type: string; status: string; reason?: string }> = [],
  extra: Partial<VirtualMachineInstance> = {},
): VirtualMachineInstance {
  return {
    metadata: { name: "vm", uid: "vmi-uid" },
    spec: { domain: { devices: {} } },
    status: { phase, conditions },
    ...extra,
  };
}
const input = (partial: Partial<VMStatusInput>): VMStatusInput => ({
  vm: vm(),
  vmi: undefined,
  syncError: undefined,
  startExpected: false,
  stopExpected: false,
  observedGeneration: undefined,
  now,
  random: () => 0,
  ...partial,
});

describe("printableStatus", () => {
  it.each<[string, Partial<VMStatusInput>, string]>([
    ["no VMI and none coming: Stopped", {}, "Stopped"],
    ["a VMI creation in flight: Starting", { startExpected: true }, "Starting"],
    ["a Pending VMI: Starting", { vmi: vmi("Pending") }, "Starting"],
    ["a Scheduled VMI: Starting", { vmi: vmi("Scheduled") }, "Starting"],
    ["a Running VMI: Running", { vmi: vmi("Running") }, "Running"],
    ["a paused Running VMI: Paused", { vmi: vmi("Running", [{ type: "Paused", status: "True" }]) }, "Paused"],
    [
      "a VMI being deleted: Stopping",
      { vmi: vmi("Running", [], { metadata: { name: "vm", deletionTimestamp: "2026-01-01T00:00:00Z" } }) },
      "Stopping",
    ],
    ["a VMI deletion in flight: Stopping", { vmi: vmi("Running"), stopExpected: true }, "Stopping"],
    [
      "a finished VMI of a Halted VM: Stopped",
      { vm: vm({ runStrategy: "Halted" }), vmi: vmi("Succeeded") },
      "Stopped",
    ],
    [
      "an Always VM whose VMI failed before running: CrashLoopBackOff",
      { vmi: vmi("Failed") },
      "CrashLoopBackOff",
    ],
    [
      "the VM being deleted: Terminating",
      {
        vm: vm({ runStrategy: "Always" }, { metadata: { name: "vm", deletionTimestamp: "x" } }),
        vmi: vmi("Running"),
      },
      "Terminating",
    ],
    [
      "an unschedulable Pod: ErrorUnschedulable",
      { vmi: vmi("Scheduling", [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }]) },
      "ErrorUnschedulable",
    ],
    [
      "an image that cannot be pulled: ErrImagePull",
      { vmi: vmi("Scheduling", [{ type: "Synchronized", status: "False", reason: "ErrImagePull" }]) },
      "ErrImagePull",
    ],
    [
      "an image in backoff: ImagePullBackOff",
      { vmi: vmi("Scheduling", [{ type: "Synchronized", status: "False", reason: "ImagePullBackOff" }]) },
      "ImagePullBackOff",
    ],
    [
      "a VM whose VMIs keep failing early: CrashLoopBackOff",
      {
        vm: vm(
          { runStrategy: "Always" },
          { status: { startFailure: { consecutiveFailCount: 2, lastFailedVMIUID: "old" } } },
        ),
      },
      "CrashLoopBackOff",
    ],
    [
      "a migrating VMI: Migrating",
      {
        vmi: vmi("Running", [], {
          status: { phase: "Running", migrationState: { startTimestamp: "2025-12-31T23:59:00Z" } },
        }),
      },
      "Migrating",
    ],
    // First match wins: these rows pin the order of upstream's table.
    [
      "the VM being deleted while its VMI stops: Terminating",
      {
        vm: vm({ runStrategy: "Always" }, { metadata: { name: "vm", deletionTimestamp: "x" } }),
        vmi: vmi("Running"),
        stopExpected: true,
      },
      "Terminating",
    ],
    [
      "a migrating VMI being stopped: Stopping",
      {
        vmi: vmi("Running", [], {
          status: { phase: "Running", migrationState: { startTimestamp: "2025-12-31T23:59:00Z" } },
        }),
        stopExpected: true,
      },
      "Stopping",
    ],
    [
      "a paused VMI that migrates: Migrating",
      {
        vmi: vmi("Running", [{ type: "Paused", status: "True" }], {
          status: {
            phase: "Running",
            conditions: [{ type: "Paused", status: "True" }],
            migrationState: { startTimestamp: "2025-12-31T23:59:00Z" },
          },
        }),
      },
      "Migrating",
    ],
    [
      "a finished migration: Running",
      {
        vmi: vmi("Running", [], {
          status: {
            phase: "Running",
            migrationState: {
              startTimestamp: "2025-12-31T23:58:00Z",
              endTimestamp: "2025-12-31T23:59:00Z",
            },
          },
        }),
      },
      "Running",
    ],
    [
      "a missing PVC: ErrorPvcNotFound",
      { vmi: vmi("Pending", [{ type: "Synchronized", status: "False", reason: "FailedPvcNotFound" }]) },
      "ErrorPvcNotFound",
    ],
    [
      "a started VM whose claim is not bound yet: WaitingForVolumeBinding",
      { vm: withClaim({ runStrategy: "Always" }), vmi: vmi("Pending"), pvcs: pendingClaim },
      "WaitingForVolumeBinding",
    ],
    [
      "a halted VM whose claim is not bound: Stopped, nothing waits for it",
      { vm: withClaim({ runStrategy: "Halted" }), pvcs: pendingClaim },
      "Stopped",
    ],
    [
      "a missing claim: ErrorPvcNotFound before WaitingForVolumeBinding",
      {
        vm: withClaim({ runStrategy: "Always" }),
        vmi: vmi("Pending", [{ type: "Synchronized", status: "False", reason: "FailedPvcNotFound" }]),
        pvcs: pendingClaim,
      },
      "ErrorPvcNotFound",
    ],
    [
      "unschedulable and pulling fails: ErrorUnschedulable first",
      {
        vmi: vmi("Scheduling", [
          { type: "Synchronized", status: "False", reason: "ErrImagePull" },
          { type: "PodScheduled", status: "False", reason: "Unschedulable" },
        ]),
      },
      "ErrorUnschedulable",
    ],
    [
      "a Pod not scheduled for another reason: Starting",
      { vmi: vmi("Scheduling", [{ type: "PodScheduled", status: "False", reason: "SchedulerError" }]) },
      "Starting",
    ],
    [
      "a Running VMI whose last sync failed on an image: still Running",
      { vmi: vmi("Running", [{ type: "Synchronized", status: "False", reason: "ErrImagePull" }]) },
      "Running",
    ],
    [
      "a failed VMI while its successor is being created: Stopped, not CrashLoopBackOff",
      { vmi: vmi("Failed"), startExpected: true },
      "Stopped",
    ],
    [
      "start failures of a Manual VM: Stopped (Manual does not restart)",
      {
        vm: vm(
          { runStrategy: "Manual" },
          { status: { startFailure: { consecutiveFailCount: 2, lastFailedVMIUID: "old" } } },
        ),
      },
      "Stopped",
    ],
    [
      "a RerunOnFailure VM whose VMI failed before running: CrashLoopBackOff",
      { vm: vm({ runStrategy: "RerunOnFailure" }), vmi: vmi("Failed") },
      "CrashLoopBackOff",
    ],
    [
      "a VMI that failed after running: Stopped",
      {
        vmi: vmi("Failed", [], {
          status: {
            phase: "Failed",
            phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: "x" }],
          },
        }),
      },
      "Stopped",
    ],
  ])("%s", (_name, partial, expected) => {
    expect(computeVMStatus(input(partial)).printableStatus).toBe(expected);
  });
});

describe("computeVMStatus", () => {
  it("mirrors the VMI's Ready and other conditions, and reports created and ready", () => {
    const running = vmi("Running", [
      { type: "Ready", status: "True" },
      { type: "LiveMigratable", status: "True" },
    ]);
    const status = computeVMStatus(input({ vmi: running, observedGeneration: 2 }));
    expect(status).toMatchObject({
      created: true,
      ready: true,
      runStrategy: "Always",
      observedGeneration: 2,
      desiredGeneration: 3,
    });
    expect(status.conditions).toEqual([
      { type: "Ready", status: "True" },
      { type: "LiveMigratable", status: "True" },
    ]);
  });

  it("says why it is not ready without a VMI, and records a sync failure", () => {
    const status = computeVMStatus(
      input({ syncError: new SyncError("Failure while starting VMI: boom", "FailedCreate") }),
    );
    expect(status.conditions).toEqual([
      expect.objectContaining({
        type: "Ready",
        status: "False",
        reason: "VMINotExists",
        message: "VMI does not exist",
      }),
      expect.objectContaining({
        type: "Failure",
        status: "True",
        reason: "FailedCreate",
        message: "Failure while starting VMI: boom",
      }),
    ]);
    expect(status.runStrategy).toBeUndefined();
  });

  it.each<[string, VirtualMachineInstance | undefined, Array<{ action: string; uid?: string }>]>([
    ["drops a stop request once no VMI is left", undefined, [{ action: "Start" }]],
    [
      "keeps a stop request while its VMI exists",
      vmi("Running"),
      [{ action: "Stop", uid: "vmi-uid" }, { action: "Start" }],
    ],
  ])("%s", (_name, subject, expected) => {
    const restarting = vm(
      { runStrategy: "Always" },
      { status: { stateChangeRequests: [{ action: "Stop", uid: "vmi-uid" }, { action: "Start" }] } },
    );
    expect(computeVMStatus(input({ vm: restarting, vmi: subject })).stateChangeRequests).toEqual(expected);
  });

  it("drops a start request once a live VMI exists", () => {
    const starting = vm(
      { runStrategy: "Manual" },
      { status: { stateChangeRequests: [{ action: "Start" }] } },
    );
    expect(computeVMStatus(input({ vm: starting, vmi: vmi("Scheduling") })).stateChangeRequests).toEqual([]);
  });

  it("counts a VMI that failed before running as a start failure, with backoff", () => {
    const status = computeVMStatus(input({ vmi: vmi("Failed") }));
    expect(status.startFailure).toEqual({
      lastFailedVMIUID: "vmi-uid",
      retryAfterTimestamp: "2026-01-01T00:00:10Z",
      consecutiveFailCount: 1,
    });
  });

  it("counts one VMI once, and the next failure on top of the earlier ones", () => {
    const failedBefore = vm(
      { runStrategy: "Always" },
      {
        status: {
          startFailure: {
            consecutiveFailCount: 1,
            lastFailedVMIUID: "vmi-uid",
            retryAfterTimestamp: "2025-12-31T23:59:59Z",
          },
        },
      },
    );
    expect(computeVMStatus(input({ vm: failedBefore, vmi: vmi("Failed") })).startFailure).toEqual(
      failedBefore.status?.startFailure,
    );
    const next = vmi("Failed", [], { metadata: { name: "vm", uid: "second-uid" } });
    expect(computeVMStatus(input({ vm: failedBefore, vmi: next })).startFailure).toEqual({
      lastFailedVMIUID: "second-uid",
      retryAfterTimestamp: "2026-01-01T00:00:40Z",
      consecutiveFailCount: 2,
    });
  });

  it.each(["Manual", "Halted"])("forgets the start failures of a %s VM", (runStrategy) => {
    const failing = vm({ runStrategy }, { status: { startFailure: { consecutiveFailCount: 3 } } });
    expect(computeVMStatus(input({ vm: failing, vmi: vmi("Failed") })).startFailure).toBeUndefined();
  });

  it("keeps the count while the next VMI is on its way", () => {
    const failing = vm({ runStrategy: "Always" }, { status: { startFailure: { consecutiveFailCount: 3 } } });
    expect(computeVMStatus(input({ vm: failing, vmi: vmi("Scheduling") })).startFailure).toEqual({
      consecutiveFailCount: 3,
    });
  });

  it.each<[string, boolean | undefined, string[]]>([
    ["sets RestartRequired when the sync found the template changed", true, ["Ready", "RestartRequired"]],
    ["removes RestartRequired when the VMI runs the template", false, ["Ready"]],
    ["leaves RestartRequired alone without a finding", undefined, ["Ready", "RestartRequired"]],
  ])("%s", (_name, restartRequired, types) => {
    const previous = vm(
      { runStrategy: "Always" },
      { status: { conditions: [{ type: "RestartRequired", status: "True", message: "earlier" }] } },
    );
    const status = computeVMStatus(input({ vm: previous, vmi: vmi("Running"), restartRequired }));
    expect(status.conditions?.map((condition) => condition.type).sort()).toEqual(types);
  });

  it("writes upstream's RestartRequired condition", () => {
    const status = computeVMStatus(input({ vmi: vmi("Running"), restartRequired: true }));
    expect(status.conditions).toContainEqual({
      type: "RestartRequired",
      status: "True",
      message: "a non-live-updatable field was changed in the template spec",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
  });

  it("clears the start failures once a VMI ran", () => {
    const ran = vmi("Failed", [], {
      status: {
        phase: "Failed",
        phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: "x" }],
      },
    });
    const failing = vm({ runStrategy: "Always" }, { status: { startFailure: { consecutiveFailCount: 3 } } });
    expect(computeVMStatus(input({ vm: failing, vmi: ran })).startFailure).toBeUndefined();
  });

  it.each([
    [1, 0, 10],
    [2, 0, 40],
    [3, 0.99, 135],
    [10, 0, 300],
  ])("start backoff after %i failures (random %f) is %i s", (failures, random, seconds) => {
    expect(startBackoffSeconds(failures, () => random)).toBe(seconds);
  });
});

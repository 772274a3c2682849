import { describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { runStrategyOf } from "../../api/run-strategy.js";
import { decideRestart, decideStart, decideStop, launcherPodToDelete, type Decision } from "./lifecycle.js";

function vm(spec: Partial<VirtualMachine["spec"]>, status?: VirtualMachine["status"]): VirtualMachine {
  const object: VirtualMachine = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "testvm", namespace: "default" },
    spec: { template: {}, ...spec },
  };
  if (status) object.status = status;
  return object;
}

function vmi(phase: string, grace?: number): VirtualMachineInstance {
  const spec: VirtualMachineInstance["spec"] = { domain: { devices: {} } };
  if (grace !== undefined) spec.terminationGracePeriodSeconds = grace;
  return { metadata: { name: "testvm", uid: "vmi-uid" }, spec, status: { phase } };
}

const refusal = (decision: Decision) => ("refused" in decision ? decision.refused : undefined);
const conflictText = (why: string) =>
  `Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvm": ${why}`;

describe("runStrategyOf", () => {
  it.each([
    [{}, "Halted"],
    [{ running: true }, "Always"],
    [{ running: false }, "Halted"],
    [{ runStrategy: "Manual" }, "Manual"],
  ])("%j → %s", (spec, expected) => {
    expect(runStrategyOf(vm(spec))).toEqual({ ok: true, value: expected });
  });
  it("refuses running together with runStrategy", () => {
    expect(runStrategyOf(vm({ running: true, runStrategy: "Always" }))).toEqual({
      ok: false,
      message: "running and runstrategy are mutually exclusive",
    });
  });
});

describe("start", () => {
  it.each([
    ["a running VMI", vm({ runStrategy: "Manual" }), vmi("Running"), "VM is already running"],
    ["a scheduling VMI", vm({ runStrategy: "Manual" }), vmi("Scheduling"), "VM is already running"],
    ["Always", vm({ runStrategy: "Always" }), undefined, "Always does not support manual start requests"],
    ["Once", vm({ runStrategy: "Once" }), undefined, "Once does not support manual start requests"],
    [
      "running: true",
      vm({ running: true }),
      vmi("Succeeded"),
      "Always does not support manual start requests",
    ],
    [
      "RerunOnFailure after failure",
      vm({ runStrategy: "RerunOnFailure" }),
      vmi("Failed"),
      "RerunOnFailure does not support starting VM from failed state",
    ],
  ])("is refused with 409 for %s", (_case, machine, instance, why) => {
    const status = refusal(decideStart(machine, instance, {}));
    expect(status?.code).toBe(409);
    expect(status?.reason).toBe("Conflict");
    expect(status?.message).toBe(conflictText(why));
    expect(status?.details).toEqual({ name: "testvm", group: "kubevirt.io", kind: "virtualmachine" });
  });

  it("flips runStrategy Halted to Always with a guarding test", () => {
    expect(decideStart(vm({ runStrategy: "Halted" }), undefined, {})).toEqual({
      writes: [
        {
          kind: "patchVM",
          patch: [
            { op: "test", path: "/spec/runStrategy", value: "Halted" },
            { op: "replace", path: "/spec/runStrategy", value: "Always" },
          ],
        },
      ],
    });
  });

  it("flips the deprecated running field when the VM uses it", () => {
    expect(decideStart(vm({ running: false }), vmi("Succeeded"), {})).toEqual({
      writes: [
        {
          kind: "patchVM",
          patch: [
            { op: "test", path: "/spec/running", value: false },
            { op: "replace", path: "/spec/running", value: true },
          ],
        },
      ],
    });
  });

  it("asks for a paused start through a state change request", () => {
    expect(decideStart(vm({ runStrategy: "Halted" }), undefined, { paused: true })).toEqual({
      writes: [
        {
          kind: "patchVMStatus",
          patch: [
            {
              op: "add",
              path: "/status",
              value: { stateChangeRequests: [{ action: "Start", data: { paused: "true" } }] },
            },
          ],
        },
      ],
    });
  });

  it("restarts a finished Manual VM with Stop(uid) then Start, guarded by the pending list", () => {
    const machine = vm(
      { runStrategy: "Manual" },
      { printableStatus: "Stopped", startFailure: { consecutiveFailCount: 1 } },
    );
    expect(decideStart(machine, vmi("Succeeded"), {})).toEqual({
      writes: [
        {
          kind: "patchVMStatus",
          patch: [
            { op: "test", path: "/status/stateChangeRequests", value: null },
            {
              op: "add",
              path: "/status/stateChangeRequests",
              value: [{ action: "Stop", uid: "vmi-uid" }, { action: "Start" }],
            },
            { op: "remove", path: "/status/startFailure" },
          ],
        },
      ],
    });
  });

  it("refuses while another start/stop is pending", () => {
    const machine = vm({ runStrategy: "Manual" }, { stateChangeRequests: [{ action: "Stop", uid: "x" }] });
    const status = refusal(decideStart(machine, undefined, {}));
    expect(status?.code).toBe(500);
    expect(status?.message).toBe(
      "Internal error occurred: unable to complete request: stop/start already underway",
    );
  });

  it("is refused while the VM needs manual recovery", () => {
    const machine = vm(
      { runStrategy: "Manual" },
      { conditions: [{ type: "ManualRecoveryRequired", status: "True" }] },
    );
    expect(refusal(decideStart(machine, undefined, {}))?.message).toContain(
      "VM recovery required: Volume migration failed",
    );
  });
});

describe("stop", () => {
  it.each([
    ["Halted without VMI", vm({ runStrategy: "Halted" }), undefined, {}, "VM is not running"],
    ["Manual without VMI", vm({ runStrategy: "Manual" }), undefined, {}, "VM is not running"],
    ["Manual with a finished VMI", vm({ runStrategy: "Manual" }), vmi("Failed"), {}, "VM is not running"],
    [
      "Halted without a shorter grace period",
      vm({ runStrategy: "Halted" }),
      vmi("Running", 30),
      { gracePeriod: 30 },
      "Halted only supports manual stop requests with a shorter graceperiod",
    ],
    [
      "Halted without any grace period",
      vm({ runStrategy: "Halted" }),
      vmi("Running", 30),
      {},
      "Halted only supports manual stop requests with a shorter graceperiod",
    ],
  ])("is refused with 409 for %s", (_case, machine, instance, options, why) => {
    const status = refusal(decideStop(machine, instance, options));
    expect(status?.code).toBe(409);
    expect(status?.message).toBe(conflictText(why));
  });

  it("halts an Always VM through runStrategy", () => {
    expect(decideStop(vm({ runStrategy: "Always" }), vmi("Running"), {})).toEqual({
      writes: [
        {
          kind: "patchVM",
          patch: [
            { op: "test", path: "/spec/runStrategy", value: "Always" },
            { op: "replace", path: "/spec/runStrategy", value: "Halted" },
          ],
        },
      ],
    });
  });

  it("shortens the VMI's grace period first, then stops", () => {
    const decision = decideStop(vm({ runStrategy: "Halted" }, {}), vmi("Running", 30), { gracePeriod: 0 });
    expect(decision).toEqual({
      writes: [
        {
          kind: "patchVMI",
          patch: [
            { op: "test", path: "/spec/terminationGracePeriodSeconds", value: 30 },
            { op: "replace", path: "/spec/terminationGracePeriodSeconds", value: 0 },
          ],
        },
        {
          kind: "patchVMStatus",
          patch: [
            {
              op: "add",
              path: "/status",
              value: { stateChangeRequests: [{ action: "Stop", uid: "vmi-uid" }] },
            },
          ],
        },
      ],
    });
  });

  it("refuses a negative grace period with a BadRequest naming it", () => {
    const status = refusal(decideStop(vm({ runStrategy: "Always" }), vmi("Running"), { gracePeriod: -1 }));
    expect([status?.code, status?.message]).toEqual([400, "gracePeriod has to be greater or equal to 0"]);
  });

  it("lets a Stop replace a pending request", () => {
    const machine = vm({ runStrategy: "Manual" }, { stateChangeRequests: [{ action: "Start" }] });
    const decision = decideStop(machine, vmi("Running"), {});
    expect(decision).toEqual({
      writes: [
        {
          kind: "patchVMStatus",
          patch: [
            { op: "test", path: "/status/stateChangeRequests", value: [{ action: "Start" }] },
            {
              op: "replace",
              path: "/status/stateChangeRequests",
              value: [{ action: "Stop", uid: "vmi-uid" }],
            },
          ],
        },
      ],
    });
  });
});

describe("restart", () => {
  it.each([
    [{ gracePeriodSeconds: 5 }, 400, "For force restart, only gracePeriod=0 is supported for now"],
    [{ gracePeriodSeconds: -1 }, 400, "gracePeriod has to be greater or equal to 0"],
  ])("checks options %j", (options, code, message) => {
    const status = refusal(decideRestart(vm({ runStrategy: "Always" }), vmi("Running"), options));
    expect(status?.code).toBe(code);
    expect(status?.reason).toBe("BadRequest");
    expect(status?.message).toBe(message);
  });

  it.each([
    [
      vm({ runStrategy: "Halted" }),
      vmi("Running"),
      "RunStategy Halted does not support manual restart requests",
    ],
    [vm({ runStrategy: "Once" }), vmi("Running"), "RunStategy Once does not support manual restart requests"],
    [vm({ runStrategy: "Always" }), undefined, "VM is not running: Halted"],
  ])("is refused with 409: %#", (machine, instance, why) => {
    expect(refusal(decideRestart(machine, instance, {}))?.message).toBe(conflictText(why));
  });

  it("asks for Stop(uid) then Start", () => {
    expect(decideRestart(vm({ runStrategy: "Always" }), vmi("Running"), {})).toEqual({
      writes: [
        {
          kind: "patchVMStatus",
          patch: [
            {
              op: "add",
              path: "/status",
              value: { stateChangeRequests: [{ action: "Stop", uid: "vmi-uid" }, { action: "Start" }] },
            },
          ],
        },
      ],
    });
  });

  it("forces by deleting the launcher pod after asking for Stop(uid) then Start", () => {
    const running = vmi("Running", 180);
    const decision = decideRestart(vm({ runStrategy: "Always" }), running, { gracePeriodSeconds: 0 });
    expect("writes" in decision && decision.writes.map((write) => write.kind)).toEqual([
      "patchVMStatus",
      "deleteLauncherPod",
    ]);
    expect("writes" in decision && decision.writes[1]).toEqual({ kind: "deleteLauncherPod", vmi: running });
  });
});

describe("the launcher pod a forced restart deletes", () => {
  const migrated = (completed: boolean): VirtualMachineInstance => ({
    ...vmi("Running"),
    status: { phase: "Running", migrationState: { completed, targetPod: "virt-launcher-b" } },
  });
  it.each([
    [[], vmi("Running"), undefined],
    [["virt-launcher-a"], vmi("Running"), "virt-launcher-a"],
    [["virt-launcher-a", "virt-launcher-b"], vmi("Running"), "virt-launcher-a"],
    [["virt-launcher-a", "virt-launcher-b"], migrated(false), "virt-launcher-a"],
    [["virt-launcher-a", "virt-launcher-b"], migrated(true), "virt-launcher-b"],
    [["virt-launcher-a", "virt-launcher-c"], migrated(true), undefined],
  ])("of %j: %#", (pods, instance, expected) => {
    expect(launcherPodToDelete(pods, instance)).toBe(expected);
  });
});

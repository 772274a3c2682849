import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import {
  migrationFailure,
  migrationStateOf,
  newMigration,
  notMigratableReason,
  readyNodes,
} from "./cluster-objects.js";

const running = { status: { phase: "Running" } };
const migratable = (status: string, reason?: string, message?: string) =>
  ({
    status: { phase: "Running", conditions: [{ type: "LiveMigratable", status, reason, message }] },
  }) as VirtualMachineInstance;

const vmim = (name: string, created: string, status: object = {}) =>
  ({
    metadata: { name, uid: `uid-${name}`, creationTimestamp: created },
    spec: {},
    status,
  }) as VirtualMachineInstanceMigration;

describe("cluster objects", () => {
  it("names the Ready nodes", () => {
    expect(
      readyNodes([
        { metadata: { name: "node01" }, status: { conditions: [{ type: "Ready", status: "True" }] } },
        { metadata: { name: "node02" }, status: { conditions: [{ type: "Ready", status: "Unknown" }] } },
        { metadata: { name: "node03" } },
      ]),
    ).toEqual(["node01"]);
  });

  it("says why a migration cannot start yet", () => {
    expect(notMigratableReason({ status: { phase: "Scheduling" } } as VirtualMachineInstance, [])).toBe(
      "phase Scheduling",
    );
    expect(notMigratableReason({} as VirtualMachineInstance, [])).toBe("phase unset");
    expect(notMigratableReason({ ...running } as VirtualMachineInstance, [])).toBe(
      "no LiveMigratable condition yet",
    );
    expect(
      notMigratableReason(migratable("False", "InterfaceNotLiveMigratable", "uses bridge binding"), []),
    ).toBe("LiveMigratable=False (InterfaceNotLiveMigratable: uses bridge binding)");
    const inFlight = migratable("True");
    inFlight.status!.migrationState = { migrationUid: "m1" };
    expect(notMigratableReason(inFlight, [])).toBe("migration m1 in flight");
  });

  it("waits for the last migration's source pod to finish, and then is ready", () => {
    const pod = (phase: string, deleting = false) => ({
      status: { phase },
      metadata: deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {},
    });
    const vmi = migratable("True");
    vmi.status!.migrationState = { migrationUid: "m1", completed: true };
    expect(notMigratableReason(vmi, [pod("Running"), pod("Running")])).toMatch(
      /^2 virt-launcher pods running/,
    );
    expect(notMigratableReason(vmi, [pod("Running"), pod("Succeeded")])).toBeUndefined();
    expect(notMigratableReason(vmi, [pod("Running", true), pod("Running")])).toBeUndefined();
  });

  it("finds the migration virtctl has just created: new, and the newest of the new", () => {
    const known = new Set(["old"]);
    const list = [
      vmim("b", "2026-01-01T00:00:05Z"),
      vmim("old", "2026-01-01T00:00:09Z"),
      vmim("a", "2026-01-01T00:00:07Z"),
    ];
    expect(newMigration(list, known)?.metadata?.name).toBe("a");
    expect(newMigration([vmim("old", "2026-01-01T00:00:09Z")], known)).toBeUndefined();
  });

  it("reads the migration's state from the VMI while it describes this migration, else from the migration", () => {
    const m = vmim("m", "2026-01-01T00:00:00Z", {
      migrationState: { migrationUid: "uid-m", targetNode: "kept" },
    });
    const vmi = {
      status: { migrationState: { migrationUid: "uid-m", targetNode: "node02" } },
    } as VirtualMachineInstance;
    expect(migrationStateOf(m, vmi)?.targetNode).toBe("node02");
    const later = { status: { migrationState: { migrationUid: "uid-other" } } } as VirtualMachineInstance;
    expect(migrationStateOf(m, later)?.targetNode).toBe("kept");
    expect(migrationStateOf(vmim("n", "2026-01-01T00:00:00Z"), undefined)).toBeUndefined();
  });

  it("explains a failed migration with its phase, the failure reason and its true conditions", () => {
    const m = vmim("m", "2026-01-01T00:00:00Z", {
      phase: "Failed",
      conditions: [
        { type: "MigrationRejectedByResourceQuota", status: "False" },
        { type: "AbortRequested", status: "True", reason: "Aborted", message: "by the user" },
      ],
    });
    const vmi = {
      status: {
        migrationState: { migrationUid: "uid-m", failed: true, failureReason: "target pod never started" },
      },
    } as VirtualMachineInstance;
    expect(migrationFailure(m, vmi, "failed")).toBe(
      "migration m failed (phase Failed); the VMI's migrationState.failureReason: target pod never started; " +
        "conditions: AbortRequested=True (Aborted: by the user)",
    );
    expect(
      migrationFailure(vmim("p", "2026-01-01T00:00:00Z"), undefined, "did not succeed within 180 s"),
    ).toBe(
      "migration p did not succeed within 180 s (phase unset); the VMI gives no migrationState.failureReason",
    );
  });
});

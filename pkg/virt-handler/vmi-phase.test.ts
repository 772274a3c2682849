import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { calculatePhase } from "./vmi-phase.js";

function vmi(phase: string, terminationGracePeriodSeconds?: number): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: {
      domain: { devices: {} },
      ...(terminationGracePeriodSeconds === undefined ? {} : { terminationGracePeriodSeconds }),
    },
    status: { phase },
  };
}

function domain(status: string, reason: string, acpi = true): DomainObject {
  return {
    objectMeta: { name: "default_testvmi", namespace: "default" },
    spec: { type: "kvm", name: "default_testvmi", ...(acpi ? { features: { acpi: {} } } : {}) },
    status: { status, reason },
  } as unknown as DomainObject;
}

describe("calculatePhase", () => {
  it.each([
    // [current phase, domain, launcher unresponsive, expected]
    ["Scheduled", undefined, false, "Scheduled"],
    ["Scheduled", undefined, true, "Failed"],
    ["Running", undefined, true, "Failed"],
    ["Running", undefined, false, "Running"],
    ["Pending", undefined, false, "Scheduled"],
    ["Succeeded", undefined, true, "Succeeded"],
    ["Scheduled", domain("Running", "Unknown"), false, "Running"],
    ["Scheduled", domain("Paused", "StartingUp"), false, "Running"],
    ["Running", domain("Paused", "PostcopyFailed"), false, "Failed"],
    ["Running", domain("Blocked", ""), false, "Running"],
    ["Running", domain("Shutoff", "Shutdown"), false, "Succeeded"],
    ["Running", domain("Shutoff", "Crashed"), false, "Failed"],
    ["Running", domain("Crashed", "Panicked"), false, "Failed"],
    ["Running", domain("Shutoff", "Destroyed"), false, "Failed"],
    ["Running", domain("Shutoff", "Destroyed", false), false, "Succeeded"],
    ["Running", domain("Shutoff", "Migrated"), false, "Running"],
    ["Running", domain("ShuttingDown", "User"), false, "Running"],
  ] as const)("%s with %j (unresponsive %s) → %s", (phase, dom, unresponsive, expected) => {
    expect(calculatePhase({ vmi: vmi(phase), domain: dom, launcherUnresponsive: unresponsive })).toBe(
      expected,
    );
  });

  it("treats a destroyed domain as Succeeded when the VMI has no grace period", () => {
    expect(
      calculatePhase({
        vmi: vmi("Running", 0),
        domain: domain("Shutoff", "Destroyed"),
        launcherUnresponsive: false,
      }),
    ).toBe("Succeeded");
  });
});

describe("calculatePhase during migrations", () => {
  it("keeps the phase of a VMI whose source domain was shut off as migrated", () => {
    expect(
      calculatePhase({
        vmi: vmi("Running"),
        domain: domain("Shutoff", "Migrated"),
        launcherUnresponsive: false,
      }),
    ).toBe("Running");
  });

  it("fails a destroyed guest whose post-copy migration failed", () => {
    const failed = vmi("Running", 0);
    failed.status!.migrationState = { failed: true, mode: "PostCopy" };
    expect(
      calculatePhase({
        vmi: failed,
        domain: domain("Shutoff", "Destroyed", false),
        launcherUnresponsive: false,
      }),
    ).toBe("Failed");
  });
});

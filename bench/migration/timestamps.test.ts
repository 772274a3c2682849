import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import { comparePhases, phaseOffsets } from "./timestamps.js";

describe("timestamps", () => {
  it("orders phases as the controller goes through them, unknown ones last", () => {
    const phases = ["Succeeded", "Bogus", "Running", "Pending", "TargetReady", "Scheduling"];
    expect(phases.sort(comparePhases)).toEqual([
      "Pending",
      "Scheduling",
      "TargetReady",
      "Running",
      "Succeeded",
      "Bogus",
    ]);
  });

  it("gives each phase transition in seconds since the migration was created", () => {
    const vmim = {
      metadata: { name: "m", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { vmiName: "vm" },
      status: {
        phase: "Succeeded",
        phaseTransitionTimestamps: [
          { phase: "Succeeded", phaseTransitionTimestamp: "2026-01-01T00:00:04Z" },
          { phase: "Pending", phaseTransitionTimestamp: "2026-01-01T00:00:00Z" },
          { phase: "Running", phaseTransitionTimestamp: "2026-01-01T00:00:02Z" },
          { phase: "Scheduled", phaseTransitionTimestamp: "garbage" },
          { phaseTransitionTimestamp: "2026-01-01T00:00:01Z" },
        ],
      },
    } as VirtualMachineInstanceMigration;
    expect(phaseOffsets(vmim)).toEqual([
      { phase: "Pending", seconds: 0 },
      { phase: "Running", seconds: 2 },
      { phase: "Succeeded", seconds: 4 },
    ]);
    expect(phaseOffsets({ spec: {} } as VirtualMachineInstanceMigration)).toEqual([]);
  });
});

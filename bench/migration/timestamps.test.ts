import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import { comparePhases, parseTimestamp, phaseOffsets, secondsBetween } from "./timestamps.js";

describe("timestamps", () => {
  it("parses RFC 3339 as the API writes it, with a fraction or an offset too", () => {
    expect(parseTimestamp("2026-01-01T00:00:05Z")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5));
    expect(parseTimestamp("2026-01-01T00:00:05.250000Z")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5, 250));
    expect(parseTimestamp("2026-01-01T01:00:05+01:00")).toBe(Date.UTC(2026, 0, 1, 0, 0, 5));
  });

  it("refuses what is missing or not RFC 3339, though Date.parse would take it", () => {
    for (const value of [undefined, null, "", "2026-01-01", "Jan 1 2026", "2026-01-01T00:00:05", "soon"]) {
      expect(parseTimestamp(value)).toBeUndefined();
    }
  });

  it("counts seconds between two timestamps, undefined when either is missing", () => {
    expect(secondsBetween("2026-01-01T00:00:05Z", "2026-01-01T00:00:09Z")).toBe(4);
    expect(secondsBetween("2026-01-01T00:00:05Z", undefined)).toBeUndefined();
  });

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

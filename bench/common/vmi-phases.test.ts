import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { vmiPhaseTimes } from "./vmi-phases.js";

describe("VMI phase times", () => {
  it("gives the creation and each phase, in phase order, in seconds since apply started", () => {
    const start = Date.UTC(2026, 0, 1, 0, 0, 0, 400);
    const vmi = {
      metadata: { creationTimestamp: "2026-01-01T00:00:00Z" },
      status: {
        phaseTransitionTimestamps: [
          { phase: "Running", phaseTransitionTimestamp: "2026-01-01T00:00:09Z" },
          { phase: "Pending", phaseTransitionTimestamp: "2026-01-01T00:00:01Z" },
          { phase: "Scheduled", phaseTransitionTimestamp: "2026-01-01T00:00:04Z" },
          { phase: "Scheduling", phaseTransitionTimestamp: "2026-01-01T00:00:01Z" },
          { phase: "Scheduling", phaseTransitionTimestamp: "2026-01-01T00:00:08Z" },
          { phase: "Odd", phaseTransitionTimestamp: "2026-01-01T00:00:02Z" },
          { phase: "Failed", phaseTransitionTimestamp: "garbage" },
        ],
      },
    } as VirtualMachineInstance;
    expect(vmiPhaseTimes(vmi, start)).toEqual([
      { phase: "created", seconds: -0.4 },
      { phase: "Pending", seconds: 0.6 },
      { phase: "Scheduling", seconds: 0.6 },
      { phase: "Scheduled", seconds: 3.6 },
      { phase: "Running", seconds: 8.6 },
      { phase: "Odd", seconds: 1.6 },
    ]);
    expect(vmiPhaseTimes({} as VirtualMachineInstance, start)).toEqual([]);
  });
});

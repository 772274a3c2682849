import { describe, expect, it } from "vitest";
import { checkSpreadCPUTopology } from "./cpu.js";

const it4 = (guest: number) => ({ cpu: { guest }, memory: { guest: "1Gi" } });

describe("spread CPU topology check", () => {
  it("passes what divides and what does not spread", () => {
    expect(checkSpreadCPUTopology(it4(4), { cpu: { preferredCPUTopology: "spread" } })).toBeUndefined();
    expect(checkSpreadCPUTopology(it4(3), { cpu: { preferredCPUTopology: "cores" } })).toBeUndefined();
    expect(checkSpreadCPUTopology(undefined, { cpu: { preferredCPUTopology: "spread" } })).toBeUndefined();
  });

  it("names the guest vCPUs with upstream's messages", () => {
    const threads = { cpu: { preferredCPUTopology: "spread", spreadOptions: { across: "CoresThreads" } } };
    expect(checkSpreadCPUTopology(it4(3), threads)?.statusCause()).toEqual({
      reason: "FieldValueInvalid",
      field: "instancetype.spec.cpu.guest",
      message: "3 vCPUs provided by the instance type are not divisible by the number of threads per core 2",
    });
    const all = {
      cpu: {
        preferredCPUTopology: "preferSpread",
        spreadOptions: { across: "SocketsCoresThreads", ratio: 3 },
      },
    };
    expect(checkSpreadCPUTopology(it4(8), all)?.error()).toBe(
      "8 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and " +
        "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 3",
    );
  });
});

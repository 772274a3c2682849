import { describe, expect, it } from "vitest";
import { admitClusterPreference, admitPreference } from "./admitter.js";

const preference = (cpu: Record<string, unknown>) => ({
  apiVersion: "instancetype.kubevirt.io/v1beta1",
  kind: "VirtualMachinePreference",
  metadata: { name: "p" },
  spec: { cpu },
});
const admit = (cpu: Record<string, unknown>) =>
  admitPreference({ operation: "CREATE", object: preference(cpu) });

describe("preference admitter", () => {
  it("admits known topologies and warns about deprecated names", () => {
    expect(admit({ preferredCPUTopology: "cores" })).toEqual({ causes: [], warnings: [] });
    expect(
      admitClusterPreference({
        operation: "UPDATE",
        object: preference({ preferredCPUTopology: "preferCores" }),
      }),
    ).toEqual({
      causes: [],
      warnings: [
        "PreferredCPUTopology preferCores is deprecated for removal in a future release, please use cores instead",
      ],
    });
  });

  it("refuses an unknown topology and unsupported spread options, in upstream's words", () => {
    expect(admit({ preferredCPUTopology: "diagonal" }).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.cpu.preferredCPUTopology",
        message: "unknown preferredCPUTopology diagonal",
      },
    ]);
    expect(admit({ preferredCPUTopology: "spread", spreadOptions: { across: "Sockets" } }).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.cpu.spreadOptions.across",
        message: "across Sockets is not supported",
      },
    ]);
    expect(
      admit({ preferredCPUTopology: "spread", spreadOptions: { across: "CoresThreads", ratio: 4 } }).causes,
    ).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.cpu.spreadOptions.ratio",
        message:
          "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads",
      },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { admitClusterInstancetype, admitInstancetype } from "./admitter.js";

const instancetype = (memory: Record<string, unknown>, kind = "VirtualMachineInstancetype") => ({
  apiVersion: "instancetype.kubevirt.io/v1beta1",
  kind,
  metadata: { name: "it" },
  spec: { cpu: { guest: 1 }, memory: { guest: "1Gi", ...memory } },
});

describe("instancetype admitter", () => {
  it("admits a valid instance type, and anything on delete", () => {
    expect(
      admitInstancetype({ operation: "CREATE", object: instancetype({ overcommitPercent: 50 }) }),
    ).toEqual({
      causes: [],
      warnings: [],
    });
    expect(admitInstancetype({ operation: "DELETE", object: {} }).causes).toEqual([]);
  });

  it("refuses an overcommit out of range, and with hugepages, in upstream's words", () => {
    expect(
      admitInstancetype({ operation: "CREATE", object: instancetype({ overcommitPercent: 101 }) }).causes,
    ).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.memory.overcommitPercent",
        message: "spec.memory.overcommitPercent '101': must be in range between 0 and 100.",
      },
    ]);
    const both = instancetype(
      { overcommitPercent: 10, hugepages: { pageSize: "2Mi" } },
      "VirtualMachineClusterInstancetype",
    );
    expect(admitClusterInstancetype({ operation: "UPDATE", object: both }).causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.memory.overcommitPercent",
        message: "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together.",
      },
    ]);
  });

  it("refuses what the schema refuses, naming the field", () => {
    const causes = admitInstancetype({
      operation: "CREATE",
      object: { metadata: { name: "x" }, spec: { memory: {} } },
    }).causes;
    expect(causes.map((cause) => cause.field)).toContain("spec.cpu");
  });
});

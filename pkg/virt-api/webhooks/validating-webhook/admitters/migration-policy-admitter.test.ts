import { describe, expect, it } from "vitest";
import { admitMigrationPolicy } from "./migration-policy-admitter.js";

const policy = (spec: Record<string, unknown>) => ({
  apiVersion: "migrations.kubevirt.io/v1alpha1",
  kind: "MigrationPolicy",
  metadata: { name: "p" },
  spec: { selectors: {}, ...spec },
});
const admit = (spec: Record<string, unknown>) => admitMigrationPolicy({ object: policy(spec) } as never);

describe("the MigrationPolicy admitter (upstream migrationpolicy-admitter.go)", () => {
  it.each([
    ["an empty spec", {}],
    ["zero timeout and bandwidth", { completionTimeoutPerGiB: 0, bandwidthPerMigration: "0" }],
    [
      "positive values",
      { completionTimeoutPerGiB: 150, bandwidthPerMigration: "64Mi", allowAutoConverge: true },
    ],
  ])("accepts %s", (_name, spec) => {
    expect(admit(spec)).toEqual({ causes: [], warnings: [] });
  });

  it.each([
    ["a negative completion timeout", { completionTimeoutPerGiB: -1 }, ["spec.completionTimeoutPerGiB"]],
    ["a negative bandwidth", { bandwidthPerMigration: "-1Mi" }, ["spec.bandwidthPerMigration"]],
    ["a negative fractional bandwidth", { bandwidthPerMigration: "-0.5" }, ["spec.bandwidthPerMigration"]],
    [
      "both, each named",
      { completionTimeoutPerGiB: -5, bandwidthPerMigration: "-1" },
      ["spec.completionTimeoutPerGiB", "spec.bandwidthPerMigration"],
    ],
  ])("refuses %s", (_name, spec, fields) => {
    const verdict = admit(spec);
    expect(verdict.causes.map((c) => [c.field, c.message])).toEqual(
      fields.map((field) => [field, "must not be negative"]),
    );
  });

  it("refuses a spec of the wrong shape, naming the field", () => {
    const verdict = admit({ completionTimeoutPerGiB: "soon" });
    expect(verdict.causes.length).toBeGreaterThan(0);
    expect(JSON.stringify(verdict.causes)).toContain("completionTimeoutPerGiB");
  });
});

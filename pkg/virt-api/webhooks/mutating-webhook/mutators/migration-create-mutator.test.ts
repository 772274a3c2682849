import { describe, expect, it } from "vitest";
import { mutateMigrationCreate } from "./migration-create-mutator.js";

const create = (object: unknown) => mutateMigrationCreate({ operation: "CREATE", object });

describe("the migration mutator", () => {
  it("labels the migration with its VMI and adds the migration finalizer, replacing the metadata", () => {
    const migration = {
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstanceMigration",
      metadata: { generateName: "kubevirt-migrate-vm-", namespace: "default", labels: { test: "test" } },
      spec: { vmiName: "testVmi" },
    };
    expect(create(migration)).toEqual({
      allowed: true,
      patchType: "JSONPatch",
      patch: [
        {
          op: "replace",
          path: "/metadata",
          value: {
            generateName: "kubevirt-migrate-vm-",
            namespace: "default",
            labels: { test: "test", "kubevirt.io/vmi-name": "testVmi" },
            finalizers: ["kubevirt.io/migrationJobFinalize"],
          },
        },
      ],
    });
  });

  it("overwrites a selector label naming another VMI and appends the finalizer to the others, as upstream", () => {
    const migration = {
      metadata: {
        labels: { "kubevirt.io/vmi-name": "other" },
        finalizers: ["a", "kubevirt.io/migrationJobFinalize"],
      },
      spec: { vmiName: "v" },
    };
    expect(create(migration).patch).toEqual([
      {
        op: "replace",
        path: "/metadata",
        value: {
          labels: { "kubevirt.io/vmi-name": "v" },
          finalizers: ["a", "kubevirt.io/migrationJobFinalize", "kubevirt.io/migrationJobFinalize"],
        },
      },
    ]);
  });

  it("labels a migration without metadata or vmiName too (the admitter refuses the latter)", () => {
    expect(create({ spec: {} }).patch).toEqual([
      {
        op: "replace",
        path: "/metadata",
        value: { labels: { "kubevirt.io/vmi-name": "" }, finalizers: ["kubevirt.io/migrationJobFinalize"] },
      },
    ]);
  });

  it("refuses what the schema refuses, and what Go cannot decode", () => {
    expect(create({ very: "unknown", spec: {} })).toEqual({
      allowed: false,
      result: {
        message: ".very in body is a forbidden property",
        code: 422,
        reason: "Invalid",
        details: { causes: [{ message: ".very in body is a forbidden property" }] },
      },
    });
    expect(create([])).toEqual({
      allowed: false,
      result: {
        message: "json: cannot unmarshal array into Go value of type map[string]interface {}",
        code: 400,
      },
    });
    expect(create({ metadata: "x", spec: {} })).toEqual({
      allowed: false,
      result: {
        message:
          "json: cannot unmarshal string into Go struct field VirtualMachineInstanceMigration.metadata of type v1.ObjectMeta",
        code: 400,
      },
    });
  });
});

import { describe, expect, it } from "vitest";
import { admitMigrationUpdate } from "./migration-update-admitter.js";

const SELECTOR = "kubevirt.io/vmi-name";

function migration(
  spec: Record<string, unknown> = { vmiName: "testvmi" },
  labels?: Record<string, string> | null,
  phase?: string,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: "testmigration", namespace: "default" };
  // null: no labels at all (Go's nil map).
  if (labels != null) metadata["labels"] = labels;
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata,
    spec,
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

const update = (object: unknown, oldObject: unknown) =>
  admitMigrationUpdate({ operation: "UPDATE", object, oldObject, namespace: "default" });

const refusedWith = (message: string) => ({
  allowed: false,
  result: {
    message,
    code: 422,
    reason: "Invalid",
    details: { causes: [{ reason: "FieldValueNotSupported", message }] },
  },
});

describe("the migration update admitter", () => {
  it("accepts an update that leaves the spec as it is", () => {
    expect(update(migration(), migration())).toEqual({ allowed: true });
  });

  it.each([
    ["vmiName", { vmiName: "other" }],
    ["addedNodeSelector", { vmiName: "testvmi", addedNodeSelector: { zone: "a" } }],
    ["priority", { vmiName: "testvmi", priority: "user-triggered" }],
    ["sendTo", { vmiName: "testvmi", sendTo: { migrationID: "a", connectURL: "x" } }],
    ["receive", { vmiName: "testvmi", receive: { migrationID: "a" } }],
  ])("refuses a change of %s", (_field, spec) => {
    expect(update(migration(spec), migration())).toEqual(
      refusedWith("update of Migration object's spec is restricted"),
    );
  });

  it("compares the specs as Go's semantic equality does", () => {
    // An empty map equals none, an absent string the empty one, key order does not count.
    expect(
      update(migration({ vmiName: "testvmi", addedNodeSelector: {} }), migration({ vmiName: "testvmi" })),
    ).toEqual({ allowed: true });
    expect(update(migration({}), migration({ vmiName: "" }))).toEqual({ allowed: true });
    expect(
      update(
        migration({ vmiName: "v", addedNodeSelector: { a: "1", b: "2" } }),
        migration({ vmiName: "v", addedNodeSelector: { b: "2", a: "1" } }),
      ),
    ).toEqual({ allowed: true });
    // A pointer set to its zero value is still set.
    expect(update(migration({ vmiName: "v", priority: "" }), migration({ vmiName: "v" }))).toEqual(
      refusedWith("update of Migration object's spec is restricted"),
    );
  });

  it("refuses removing all labels, the selector among them, from an in-flight migration", () => {
    expect(
      update(migration(undefined, null), migration(undefined, { [SELECTOR]: "testvmi", other: "x" })),
    ).toEqual(refusedWith("selector label can't be removed from an in-flight migration"));
  });

  it.each([
    ["removed", { other: "x" }],
    ["changed", { [SELECTOR]: "othervmi", other: "x" }],
    ["emptied", {}],
  ])("refuses the selector label %s on an in-flight migration", (_how, labels) => {
    expect(
      update(migration(undefined, labels), migration(undefined, { [SELECTOR]: "testvmi", other: "x" })),
    ).toEqual(refusedWith("selector label can't be modified on an in-flight migration"));
  });

  it("accepts removing another label, and any label change once the migration is final", () => {
    const old = migration(undefined, { [SELECTOR]: "testvmi", other: "x" });
    expect(update(migration(undefined, { [SELECTOR]: "testvmi" }), old)).toEqual({ allowed: true });
    expect(update(migration(undefined, null, "Succeeded"), old)).toEqual({ allowed: true });
    expect(update(migration(undefined, { [SELECTOR]: "x" }, "Failed"), old)).toEqual({ allowed: true });
    // The old object had no selector label (or no labels): nothing to keep.
    expect(update(migration(undefined, null), migration(undefined, { other: "x" }))).toEqual({
      allowed: true,
    });
    expect(update(migration(undefined, { [SELECTOR]: "a" }), migration())).toEqual({ allowed: true });
  });

  it("refuses unknown fields with the openapi messages", () => {
    const object = { very: "unknown", spec: { extremely: "unknown" } };
    expect(update(object, migration())).toEqual({
      allowed: false,
      result: {
        message: ".very in body is a forbidden property, spec.extremely in body is a forbidden property",
        code: 422,
        reason: "Invalid",
        details: {
          causes: [
            { message: ".very in body is a forbidden property" },
            { message: "spec.extremely in body is a forbidden property" },
          ],
        },
      },
    });
  });

  it("answers an object or old object Go cannot decode with Go's error, as a 400", () => {
    const error = (type: string) => ({
      allowed: false,
      result: {
        message: `json: cannot unmarshal ${type} into Go value of type v1.VirtualMachineInstanceMigration`,
        code: 400,
      },
    });
    expect(update("text", migration())).toEqual(error("string"));
    expect(update(migration(), 5)).toEqual(error("number"));
  });
});

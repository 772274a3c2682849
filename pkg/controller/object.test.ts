import { describe, expect, it } from "vitest";
import { controllerRefOf, keyOf, newControllerRef, splitKey } from "./object.js";

describe("keyOf / splitKey", () => {
  it.each([
    [{ metadata: { name: "vm1", namespace: "default" } }, "default/vm1"],
    [{ metadata: { name: "node01" } }, "node01"],
  ])("keyOf(%j) = %s and splits back", (obj, key) => {
    expect(keyOf(obj)).toBe(key);
    const { namespace, name } = splitKey(key);
    expect(name).toBe(obj.metadata.name);
    expect(namespace).toBe("namespace" in obj.metadata ? obj.metadata.namespace : "");
  });

  it("rejects objects without a name", () => {
    expect(() => keyOf({ metadata: {} })).toThrow(/metadata.name/);
  });

  it.each(["", "a/b/c", "/b", "a/"])("rejects malformed key %j", (key) => {
    expect(() => splitKey(key)).toThrow(/unexpected key format/);
  });
});

describe("controllerRefOf", () => {
  it("returns only the reference marked controller", () => {
    const owner = { apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", name: "vm", uid: "u2" };
    const obj = {
      metadata: {
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "u1" },
          { ...owner, controller: true },
        ],
      },
    };
    expect(controllerRefOf(obj)?.uid).toBe("u2");
    expect(
      controllerRefOf({ metadata: { ownerReferences: [{ ...owner, controller: false }] } }),
    ).toBeUndefined();
  });
});

describe("newControllerRef", () => {
  it("points at the owner as its controller and blocks the owner's deletion until dependents are gone", () => {
    const owner = { metadata: { name: "testvm", namespace: "default", uid: "vm-uid" } };
    expect(newControllerRef(owner, "kubevirt.io/v1", "VirtualMachine")).toEqual({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachine",
      name: "testvm",
      uid: "vm-uid",
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});

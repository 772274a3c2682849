// Expected messages are Go's json.Unmarshal into a v1.VirtualMachine, on the same objects.
import { describe, expect, it } from "vitest";
import { goMetaDecodeError } from "./go-meta-decode.js";

const field = (struct: string, path: string, type: string, json = "number") =>
  `json: cannot unmarshal ${json} into Go struct field ${struct}.${path} of type ${type}`;

describe("what Go's decoder refuses in TypeMeta and ObjectMeta", () => {
  it.each([
    [{ kind: 5 }, field("VirtualMachine", "TypeMeta.kind", "string")],
    [{ apiVersion: true }, field("VirtualMachine", "TypeMeta.apiVersion", "string", "bool")],
    [{ metadata: 5 }, field("VirtualMachine", "metadata", "v1.ObjectMeta")],
    [{ metadata: [] }, field("VirtualMachine", "metadata", "v1.ObjectMeta", "array")],
    [{ metadata: { name: 5 } }, field("ObjectMeta", "metadata.name", "string")],
    [{ metadata: { uid: {} } }, field("ObjectMeta", "metadata.uid", "types.UID", "object")],
    [{ metadata: { labels: 5 } }, field("ObjectMeta", "metadata.labels", "map[string]string")],
    // A map's values are reported at the map, without the key.
    [{ metadata: { labels: { a: 1 } } }, field("ObjectMeta", "metadata.labels", "string")],
    [
      { metadata: { annotations: { a: true } } },
      field("ObjectMeta", "metadata.annotations", "string", "bool"),
    ],
    [{ metadata: { generation: "1" } }, field("ObjectMeta", "metadata.generation", "int64", "string")],
    [{ metadata: { generation: 1.5 } }, field("ObjectMeta", "metadata.generation", "int64", "number 1.5")],
    [{ metadata: { creationTimestamp: 5 } }, field("ObjectMeta", "metadata.creationTimestamp", "string")],
    [{ metadata: { finalizers: "x" } }, field("ObjectMeta", "metadata.finalizers", "[]string", "string")],
    [{ metadata: { finalizers: [1] } }, field("ObjectMeta", "metadata.finalizers", "string")],
    [
      { metadata: { ownerReferences: 5 } },
      field("ObjectMeta", "metadata.ownerReferences", "[]v1.OwnerReference"),
    ],
    [
      { metadata: { ownerReferences: [5] } },
      field("ObjectMeta", "metadata.ownerReferences", "v1.OwnerReference"),
    ],
    [
      { metadata: { ownerReferences: [{ uid: 5 }] } },
      field("OwnerReference", "metadata.ownerReferences.uid", "types.UID"),
    ],
    [
      { metadata: { ownerReferences: [{ controller: "x" }] } },
      field("OwnerReference", "metadata.ownerReferences.controller", "bool", "string"),
    ],
    [
      { metadata: { managedFields: [{ fieldsV1: 5, operation: 3 }] } },
      field("ManagedFieldsEntry", "metadata.managedFields.operation", "v1.ManagedFieldsOperationType"),
    ],
    // The first error in document order wins.
    [{ metadata: { name: 5 }, kind: 5 }, field("ObjectMeta", "metadata.name", "string")],
    [{ kind: 5, metadata: { name: 5 } }, field("VirtualMachine", "TypeMeta.kind", "string")],
  ])("%j", (object, message) => {
    expect(goMetaDecodeError("VirtualMachine", object)).toBe(message);
  });

  it.each([
    { metadata: null, kind: null },
    { metadata: { labels: null, name: null, unknown: 5, creationTimestamp: "not checked" } },
    { metadata: { managedFields: [{ fieldsV1: { "f:spec": {} } }] } },
    { spec: "left to the schema validation" },
  ])("accepts %j", (object) => {
    expect(goMetaDecodeError("VirtualMachine", object)).toBeUndefined();
  });
});

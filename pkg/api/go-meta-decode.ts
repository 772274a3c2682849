// What Go's json.Unmarshal refuses in a kubevirt object's TypeMeta and ObjectMeta, which upstream decodes
// after its schema validation (and that validation never looks at): `kind` that is no string, `metadata`
// that is no object, a label that is a number... The message is Go's UnmarshalTypeError text, naming the
// innermost struct and the field's path from the object, e.g. `json: cannot unmarshal number into Go
// struct field ObjectMeta.metadata.labels of type string`. Go decodes the whole object and reports the
// first such error; the spec's are the schema validation's to report first.
import { goJsonTypeName } from "../util/go-json.js";

type GoType =
  | { kind: "string"; name: string }
  | { kind: "int64" }
  | { kind: "bool" }
  /** metav1.Time: null or a string (its layout is not checked here). */
  | { kind: "time" }
  | { kind: "stringMap" }
  | { kind: "stringList" }
  | { kind: "structList"; name: string; struct: GoStruct }
  /** A value Go takes as raw JSON (FieldsV1). */
  | { kind: "raw" };

interface GoStruct {
  name: string;
  fields: Readonly<Record<string, GoType>>;
}

const string: GoType = { kind: "string", name: "string" };

const OWNER_REFERENCE: GoStruct = {
  name: "OwnerReference",
  fields: {
    apiVersion: string,
    kind: string,
    name: string,
    uid: { kind: "string", name: "types.UID" },
    controller: { kind: "bool" },
    blockOwnerDeletion: { kind: "bool" },
  },
};

const MANAGED_FIELDS_ENTRY: GoStruct = {
  name: "ManagedFieldsEntry",
  fields: {
    manager: string,
    operation: { kind: "string", name: "v1.ManagedFieldsOperationType" },
    apiVersion: string,
    time: { kind: "time" },
    fieldsType: string,
    fieldsV1: { kind: "raw" },
    subresource: string,
  },
};

const OBJECT_META: GoStruct = {
  name: "ObjectMeta",
  fields: {
    name: string,
    generateName: string,
    namespace: string,
    selfLink: string,
    uid: { kind: "string", name: "types.UID" },
    resourceVersion: string,
    generation: { kind: "int64" },
    creationTimestamp: { kind: "time" },
    deletionTimestamp: { kind: "time" },
    deletionGracePeriodSeconds: { kind: "int64" },
    labels: { kind: "stringMap" },
    annotations: { kind: "stringMap" },
    ownerReferences: { kind: "structList", name: "[]v1.OwnerReference", struct: OWNER_REFERENCE },
    finalizers: { kind: "stringList" },
    managedFields: { kind: "structList", name: "[]v1.ManagedFieldsEntry", struct: MANAGED_FIELDS_ENTRY },
  },
};

const INT64_LIMIT = 2 ** 63;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const cannot = (value: unknown, where: string, type: string, detail = "") =>
  `json: cannot unmarshal ${goJsonTypeName(value)}${detail} into Go struct field ${where} of type ${type}`;

/** Go's error for `value` decoded into `type` at `where` (`Struct.path`), or undefined. */
function check(value: unknown, type: GoType, where: string): string | undefined {
  // null leaves any Go value as it is.
  if (value === null || type.kind === "raw") return undefined;
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? undefined : cannot(value, where, type.name);
    case "time":
      return typeof value === "string" ? undefined : cannot(value, where, "string");
    case "bool":
      return typeof value === "boolean" ? undefined : cannot(value, where, "bool");
    case "int64":
      if (typeof value !== "number") return cannot(value, where, "int64");
      return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT
        ? undefined
        : cannot(value, where, "int64", ` ${String(value)}`);
    case "stringMap":
      if (!isObject(value)) return cannot(value, where, "map[string]string");
      return first(Object.values(value), (entry) => check(entry, string, where));
    case "stringList":
      if (!Array.isArray(value)) return cannot(value, where, "[]string");
      return first(value, (item) => check(item, string, where));
    case "structList":
      if (!Array.isArray(value)) return cannot(value, where, type.name);
      return first(value, (item) =>
        isObject(item)
          ? checkStruct(item, type.struct, where.slice(where.indexOf(".") + 1))
          : cannot(item, where, type.name.slice(2)),
      );
  }
}

/** The fields of `object` decoded into `struct`, whose own path from the top is `path`. */
function checkStruct(object: Record<string, unknown>, struct: GoStruct, path: string): string | undefined {
  return first(Object.entries(object), ([key, value]) => {
    const type = Object.hasOwn(struct.fields, key) ? struct.fields[key] : undefined;
    return type === undefined ? undefined : check(value, type, `${struct.name}.${path}.${key}`);
  });
}

function first<T>(items: readonly T[], find: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const found = find(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The first error Go's decoder finds in `kind`, `apiVersion` and `metadata` of a `structName` object. */
export function goMetaDecodeError(structName: string, object: Record<string, unknown>): string | undefined {
  return first(Object.entries(object), ([key, value]) => {
    if (key === "kind" || key === "apiVersion") return check(value, string, `${structName}.TypeMeta.${key}`);
    if (key !== "metadata" || value === null) return undefined;
    if (!isObject(value)) return cannot(value, `${structName}.metadata`, "v1.ObjectMeta");
    return checkStruct(value, OBJECT_META, "metadata");
  });
}

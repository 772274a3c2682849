import { describe, expect, it } from "vitest";
import {
  FieldErrorType,
  Path,
  aggregateMessage,
  duplicate,
  forbidden,
  goQuote,
  goValue,
  internalError,
  invalid,
  invalidStatus,
  newPath,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from "./field.js";

describe("Path", () => {
  it.each([
    [newPath("spec"), "spec"],
    [newPath("spec", "template", "spec"), "spec.template.spec"],
    [
      newPath("spec").child("domain", "devices").child("disks").index(0).child("name"),
      "spec.domain.devices.disks[0].name",
    ],
    [newPath("metadata", "labels").key("kubevirt.io/vm"), "metadata.labels[kubevirt.io/vm]"],
    [newPath("spec").index(2).index(3), "spec[2][3]"],
  ] as const)("%s", (path, expected) => {
    expect(path.toString()).toBe(expected);
  });

  it("is immutable: branching from a shared prefix does not leak", () => {
    const disks = Path.of("spec", "disks");
    disks.index(0);
    expect(disks.index(1).child("name").toString()).toBe("spec.disks[1].name");
    expect(disks.toString()).toBe("spec.disks");
  });
});

describe("field errors read like apimachinery's", () => {
  const path = newPath("spec", "x");
  it.each([
    [required(path), "spec.x: Required value", FieldErrorType.Required],
    [
      required(path, "must be set when y"),
      "spec.x: Required value: must be set when y",
      "FieldValueRequired",
    ],
    [forbidden(path, "may not be set"), "spec.x: Forbidden: may not be set", "FieldValueForbidden"],
    [
      invalid(path, "abc", "must be a number"),
      'spec.x: Invalid value: "abc": must be a number',
      "FieldValueInvalid",
    ],
    [invalid(path, 12, "too small"), "spec.x: Invalid value: 12: too small", "FieldValueInvalid"],
    [invalid(path, true, ""), "spec.x: Invalid value: true", "FieldValueInvalid"],
    [
      invalid(path, { b: 1, a: "<" }, "bad"),
      'spec.x: Invalid value: {"a":"\\u003c","b":1}: bad',
      "FieldValueInvalid",
    ],
    [invalid(path, null, "bad"), "spec.x: Invalid value: null: bad", "FieldValueInvalid"],
    [
      typeInvalid(path, "string", 'spec.x in body must be of type boolean: "string"'),
      'spec.x: Invalid value: "string": spec.x in body must be of type boolean: "string"',
      "FieldValueTypeInvalid",
    ],
    [
      notSupported(path, "Sometimes", ["Always", "Halted"]),
      'spec.x: Unsupported value: "Sometimes": supported values: "Always", "Halted"',
      "FieldValueNotSupported",
    ],
    [duplicate(path, "disk0"), 'spec.x: Duplicate value: "disk0"', "FieldValueDuplicate"],
    [notFound(path, "pvc1"), 'spec.x: Not found: "pvc1"', "FieldValueNotFound"],
    [tooLong(path, 63), "spec.x: Too long: may not be more than 63 bytes", "FieldValueTooLong"],
    [tooLong(path, 1), "spec.x: Too long: may not be more than 1 byte", "FieldValueTooLong"],
    [tooMany(path, 300, 256), "spec.x: Too many: 300: must have at most 256 items", "FieldValueTooMany"],
    [tooMany(path, -1, 1), "spec.x: Too many: must have at most 1 item", "FieldValueTooMany"],
    [internalError(path, new Error("boom")), "spec.x: Internal error: boom", "InternalError"],
  ] as const)("%s", (error, message, type) => {
    expect(error.toString()).toBe(message);
    expect(error.type).toBe(type);
    expect(error.toStatusCause()).toEqual({
      reason: type,
      field: "spec.x",
      message: message.slice("spec.x: ".length),
    });
  });
});

describe("Go value formatting", () => {
  it.each([
    ["plain", '"plain"'],
    ['say "hi"\n', '"say \\"hi\\"\\n"'],
    ["tab\tbell\u0007nul\u0000", '"tab\\tbell\\anul\\x00"'],
    ["ünïcode ✓", '"ünïcode ✓"'],
  ])("quotes %j like strconv.Quote", (text, quoted) => {
    expect(goQuote(text)).toBe(quoted);
  });

  it.each([
    [42, "42"],
    [-7, "-7"],
    [1.5, "1.5"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1234567.5, "1.2345675e+06"],
    [false, "false"],
    [[1, "a"], '[1,"a"]'],
    [undefined, "null"],
  ])("prints %j like %%v / json.Marshal", (value, text) => {
    expect(goValue(value)).toBe(text);
  });
});

describe("aggregates and Status", () => {
  const errors = [
    required(newPath("spec", "a")),
    invalid(newPath("spec", "b"), 1, "bad"),
    required(newPath("spec", "a")),
  ];

  it("joins distinct messages like utilerrors.Aggregate", () => {
    expect(aggregateMessage([])).toBe("");
    expect(aggregateMessage(errors.slice(0, 1))).toBe("spec.a: Required value");
    expect(aggregateMessage(errors)).toBe("[spec.a: Required value, spec.b: Invalid value: 1: bad]");
  });

  it("builds the 422 Invalid status of apierrors.NewInvalid", () => {
    const status = invalidStatus({ group: "kubevirt.io", kind: "VirtualMachine" }, "vm1", errors.slice(0, 2));
    expect(status).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 422,
      reason: "Invalid",
      message:
        'VirtualMachine.kubevirt.io "vm1" is invalid: [spec.a: Required value, spec.b: Invalid value: 1: bad]',
      details: {
        group: "kubevirt.io",
        kind: "VirtualMachine",
        name: "vm1",
        causes: [
          { reason: "FieldValueRequired", message: "Required value", field: "spec.a" },
          { reason: "FieldValueInvalid", message: "Invalid value: 1: bad", field: "spec.b" },
        ],
      },
    });
    expect(invalidStatus({ group: "", kind: "Pod" }, "p", []).message).toBe('Pod "p" is invalid');
  });
});

// Expected messages are upstream's (its definitions.Validator on the same bodies) except where noted.
import { describe, expect, it } from "vitest";
import { validateObject } from "./validator.js";

const template = { spec: { domain: { devices: {} } } };

describe("upstream's Validate of a VirtualMachine body", () => {
  it.each([
    [
      "an object of another kind",
      { stringField: "test", intField: 10 },
      [
        ".stringField in body is a forbidden property",
        ".intField in body is a forbidden property",
        "spec in body is required",
        'spec in body must be of type object: "null"',
      ],
    ],
    ["null", null, ["spec in body is required", 'spec in body must be of type object: "null"']],
    ["a null spec", { spec: null }, ['spec in body must be of type object: "null"']],
    ["a spec of the wrong type", { spec: 5 }, ['spec in body must be of type object: "number"']],
    ["a spec without template", { spec: {} }, ["spec.template in body is required"]],
    ["an unknown spec field", { spec: { template, foo: 1 } }, ["spec.foo in body is a forbidden property"]],
    [
      "an unknown field deep in the template",
      { spec: { template: { spec: { domain: { devices: {}, bar: {} } } } } },
      ["spec.template.spec.domain.bar in body is a forbidden property"],
    ],
    [
      // kube-openapi leaves the index out of the path (`disks.bar`); the field errors' paths keep it.
      "an unknown field in a list item",
      { spec: { template: { spec: { domain: { devices: { disks: [{ name: "a", bar: 1 }] } } } } } },
      ["spec.template.spec.domain.devices.disks[0].bar in body is a forbidden property"],
    ],
    [
      "a wrong type, an integer reported as Go's float64 'number'",
      { spec: { template, running: 5 } },
      ['spec.running in body must be of type boolean: "number"'],
    ],
    [
      "a map value of the wrong type",
      { spec: { template: { metadata: { labels: { a: 1 } } } } },
      ['spec.template.metadata.labels.a in body must be of type string: "number"'],
    ],
    [
      "a status of the wrong type",
      { spec: { template }, status: { ready: "yes" } },
      ['status.ready in body must be of type boolean: "string"'],
    ],
  ])("%s", (_case, body, problems) => {
    expect(validateObject("VirtualMachine", body)).toEqual(problems);
  });

  it.each([
    ["a minimal VM", { spec: { template: {} } }],
    ["a null status", { spec: { template }, status: null }],
    ["unknown status fields, which upstream lets through", { spec: { template }, status: { foo: 1 } }],
    [
      "metadata of any shape, which upstream does not validate",
      { spec: { template }, metadata: { name: 5, unknown: true }, kind: 7 },
    ],
  ])("accepts %s", (_case, body) => {
    expect(validateObject("VirtualMachine", body)).toEqual([]);
  });
});

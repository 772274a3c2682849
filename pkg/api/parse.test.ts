import { describe, expect, it } from "vitest";
import { z } from "zod";
import { newPath } from "./field.js";
import { ROOT_FIELD, isDefinitionName, parse, parseDefinition } from "./parse.js";

/** A valid VirtualMachine; each case below breaks one part of a fresh copy. */
function validVM(): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm1", labels: { app: "demo" } },
    spec: {
      runStrategy: "Always",
      template: {
        spec: {
          nodeSelector: { "kubernetes.io/arch": "amd64" },
          domain: {
            devices: {
              disks: [
                { name: "root", disk: { bus: "virtio" } },
                { name: "cloudinit", cdrom: { readonly: true } },
              ],
            },
            resources: { requests: { memory: "128Mi" } },
          },
          volumes: [
            { name: "root", containerDisk: { image: "quay.io/kubevirt/cirros-container-disk-demo" } },
          ],
          tolerations: [{ key: "k", operator: "Exists", effect: "NoSchedule" }],
        },
      },
    },
  };
}

type Mutation = (vm: ReturnType<typeof validVM>) => void;
// The cases reach deep into the object; `any` keeps the table readable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const at = (vm: unknown): any => vm;
const templateSpec = (vm: unknown) => at(vm).spec.template.spec;

describe("parseDefinition reports every bad field with its Kubernetes path", () => {
  const cases: { name: string; mutate: Mutation; errors: string[] }[] = [
    {
      name: "missing required field in an array item",
      mutate: (vm) => delete templateSpec(vm).domain.devices.disks[0].name,
      errors: ["spec.template.spec.domain.devices.disks[0].name: Required value"],
    },
    {
      name: "missing required top-level field",
      mutate: (vm) => delete vm.spec,
      errors: ["spec: Required value"],
    },
    {
      name: "wrong type deep in an array",
      mutate: (vm) => (templateSpec(vm).domain.devices.disks[1].cdrom.readonly = "yes"),
      errors: [
        'spec.template.spec.domain.devices.disks[1].cdrom.readonly: Invalid value: "string": ' +
          'spec.template.spec.domain.devices.disks[1].cdrom.readonly in body must be of type boolean: "string"',
      ],
    },
    {
      name: "bad enum",
      mutate: (vm) => (templateSpec(vm).tolerations[0].operator = "Sometimes"),
      errors: [
        'spec.template.spec.tolerations[0].operator: Unsupported value: "Sometimes": supported values: "Equal", "Exists"',
      ],
    },
    {
      name: "map entries are named like properties, as the apiserver does",
      mutate: (vm) => (templateSpec(vm).nodeSelector["kubernetes.io/arch"] = 64),
      errors: [
        'spec.template.spec.nodeSelector.kubernetes.io/arch: Invalid value: "integer": ' +
          'spec.template.spec.nodeSelector.kubernetes.io/arch in body must be of type string: "integer"',
      ],
    },
    {
      name: "malformed quantity",
      mutate: (vm) => (templateSpec(vm).domain.resources.requests.memory = "lots"),
      errors: [
        'spec.template.spec.domain.resources.requests.memory: Invalid value: "lots": quantities must match ' +
          "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ],
    },
    {
      name: "quantity of the wrong JSON type",
      mutate: (vm) => (templateSpec(vm).domain.resources.requests.memory = true),
      errors: [
        'spec.template.spec.domain.resources.requests.memory: Invalid value: "boolean": ' +
          'spec.template.spec.domain.resources.requests.memory in body must be of type string or number: "boolean"',
      ],
    },
    {
      name: "integer field given a fraction",
      mutate: (vm) => (templateSpec(vm).terminationGracePeriodSeconds = 1.5),
      errors: [
        'spec.template.spec.terminationGracePeriodSeconds: Invalid value: "number": ' +
          'spec.template.spec.terminationGracePeriodSeconds in body must be of type integer: "number"',
      ],
    },
    {
      name: "integer field given a string",
      mutate: (vm) => (templateSpec(vm).terminationGracePeriodSeconds = "30"),
      errors: [
        'spec.template.spec.terminationGracePeriodSeconds: Invalid value: "string": ' +
          'spec.template.spec.terminationGracePeriodSeconds in body must be of type integer: "string"',
      ],
    },
    {
      name: "null where an object is required",
      mutate: (vm) => (templateSpec(vm).domain = null),
      errors: [
        'spec.template.spec.domain: Invalid value: "null": spec.template.spec.domain in body must be of type object: "null"',
      ],
    },
    {
      name: "all errors, not the first",
      mutate: (vm) => {
        delete templateSpec(vm).volumes[0].name;
        delete templateSpec(vm).volumes[0].containerDisk.image;
        templateSpec(vm).domain.devices.disks = "none";
      },
      errors: [
        'spec.template.spec.domain.devices.disks: Invalid value: "string": ' +
          'spec.template.spec.domain.devices.disks in body must be of type array: "string"',
        "spec.template.spec.volumes[0].containerDisk.image: Required value",
        "spec.template.spec.volumes[0].name: Required value",
      ],
    },
  ];

  it.each(cases)("$name", ({ mutate, errors }) => {
    const vm = validVM();
    mutate(vm);
    const result = parseDefinition("v1.VirtualMachine", vm);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(String).sort()).toEqual([...errors].sort());
  });

  it("accepts the valid object and keeps unknown fields", () => {
    const vm = validVM();
    at(vm).spec.template.spec.futureField = { nested: [1, 2] };
    at(vm).status = { printableStatus: "Running", somethingNew: true };
    const result = parseDefinition("v1.VirtualMachine", vm);
    expect(result).toEqual({ ok: true, value: vm });
  });

  it("accepts null for a nullable definition (status)", () => {
    const vm = { ...validVM(), status: null };
    expect(parseDefinition("v1.VirtualMachine", vm).ok).toBe(true);
  });
});

describe("parse", () => {
  const schema = z.object({ name: z.string() });

  it("prefixes fields with the root path", () => {
    const result = parse(schema, {}, newPath("request", "object"));
    expect(result.ok ? [] : result.errors.map(String)).toEqual(["request.object.name: Required value"]);
  });

  it("names the root when the input as a whole is wrong", () => {
    const result = parse(schema, "text");
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([ROOT_FIELD]);
  });

  it("turns a throwing schema into an internal error instead of throwing", () => {
    const throwing = z.string().transform(() => {
      throw new Error("kaboom");
    });
    const result = parse(throwing, "x", newPath("spec"));
    expect(result.ok ? [] : result.errors.map(String)).toEqual(["spec: Internal error: kaboom"]);
  });

  it("knows the reference's definition names", () => {
    expect(isDefinitionName("v1.VirtualMachineInstance")).toBe(true);
    expect(isDefinitionName("v1.NoSuchThing")).toBe(false);
    expect(isDefinitionName("toString")).toBe(false);
  });
});

describe("__proto__ keys", () => {
  it("are refused with their path instead of being silently dropped", () => {
    const vm: unknown = JSON.parse(
      '{"spec":{"template":{"spec":{"domain":{"devices":{}},"__proto__":{"x":1}}}}}',
    );
    const result = parseDefinition("v1.VirtualMachine", vm);
    expect(result.ok ? [] : result.errors.map(String)).toEqual([
      "spec.template.spec.__proto__: Forbidden: the field name __proto__ is not allowed",
    ]);
  });

  it("below a root that is not an object leave the root's type error alone", () => {
    const result = parseDefinition("v1.VirtualMachine", JSON.parse('[{"__proto__":{}}]'));
    expect(result.ok ? [] : result.errors.map((error) => error.field)).toEqual(["<root>"]);
  });
});

describe("in-memory input", () => {
  it("with a cycle gives errors, not a hang or a throw", () => {
    const cyclic: Record<string, unknown> = { spec: {} };
    cyclic.self = cyclic;
    const result = parseDefinition("v1.VirtualMachine", cyclic);
    expect(result.ok ? [] : result.errors.map(String)).toEqual(["spec.template: Required value"]);
  });
});

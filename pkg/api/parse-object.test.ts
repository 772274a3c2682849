import { describe, expect, it } from "vitest";
import { parseObject } from "./parse-object.js";

describe("parseObject", () => {
  it.each([
    ["kubevirt.io/v1", "VirtualMachine", "v1.VirtualMachine"],
    ["kubevirt.io/v1alpha3", "VirtualMachineInstance", "v1.VirtualMachineInstance"],
    ["pool.kubevirt.io/v1alpha1", "VirtualMachinePool", "v1beta1.VirtualMachinePool"],
    ["migrations.kubevirt.io/v1alpha1", "MigrationPolicy", "v1alpha1.MigrationPolicy"],
  ])("%s %s is described by %s", (apiVersion, kind, definition) => {
    expect(parseObject({ apiVersion, kind, metadata: { name: "x" }, spec: {} }).definition).toBe(definition);
  });

  it.each([
    [null, "<root>: Invalid value: null: must be an object"],
    [[], "<root>: Invalid value: []: must be an object"],
    [{ kind: "VirtualMachine" }, "apiVersion: Required value"],
    [{ apiVersion: "kubevirt.io/v1" }, "kind: Required value"],
    [{ apiVersion: "v1", kind: "Pod" }, 'kind: Invalid value: "Pod": no kubevirt kind Pod is served in v1'],
    [
      { apiVersion: "kubevirt.io/v2", kind: "VirtualMachine" },
      'kind: Invalid value: "VirtualMachine": no kubevirt kind VirtualMachine is served in kubevirt.io/v2',
    ],
  ])("refuses %j", (input, message) => {
    const result = parseObject(input);
    expect(result.ok ? [] : result.errors.map(String)).toEqual([message]);
  });

  it("reports schema errors with field paths", () => {
    const result = parseObject({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstance",
      metadata: { name: "x" },
      spec: { domain: { devices: { disks: [{ disk: {} }] } } },
    });
    expect(result.ok ? [] : result.errors.map(String)).toContain(
      "spec.domain.devices.disks[0].name: Required value",
    );
  });
});

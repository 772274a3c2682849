// Every VM/VMI in upstream's examples (and the VMI templates of replica sets and pools) goes through the
// mutators: defaulting twice must equal defaulting once, must never drop or change what the user
// wrote, and must leave an object the API schema still accepts.
import { describe, expect, it } from "vitest";
import { VirtualMachineInstanceSchema, VirtualMachineSchema } from "../../../../api/generated/v1.js";
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceTemplateSpec,
} from "../../../../api/generated/v1.js";
import {
  clusterWith,
  fixedUUID,
  loadUpstreamExamples,
  lostOrChangedLeaves,
} from "../../../../defaults/testing.js";
import { applyVMMutations } from "./vm-mutator.js";
import { applyNewVMIMutations, mutateVirtualMachineInstance } from "./vmi-mutator.js";

const examples = loadUpstreamExamples();
const ofKind = (kind: string) =>
  examples.filter((example) => example.object.kind === kind).map((e) => [e.name, e] as const);
const context = {
  clusterConfig: clusterWith(),
  kubeVirtServiceAccounts: new Set<string>(),
  newUUID: fixedUUID,
};

function defaultVMI(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const result = applyNewVMIMutations(vmi, context.clusterConfig, context);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** The VMI a VM, replica set or pool would create from its template. */
function vmiFromTemplate(template: VirtualMachineInstanceTemplateSpec): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: template.metadata ?? {},
    spec: template.spec ?? { domain: { devices: {} } },
  };
}

function expectWellBehavedVMIDefaults(vmi: VirtualMachineInstance): void {
  const once = defaultVMI(vmi);
  expect(defaultVMI(once)).toEqual(once);
  expect(lostOrChangedLeaves(vmi, once)).toEqual([]);
  expect(VirtualMachineInstanceSchema.safeParse(once).success).toBe(true);
}

function expectWellBehavedVMDefaults(vm: VirtualMachine): void {
  const once = applyVMMutations(vm, "CREATE", context);
  expect(applyVMMutations(once, "CREATE", context)).toEqual(once);
  expect(lostOrChangedLeaves(vm, once)).toEqual([]);
  expect(VirtualMachineSchema.safeParse(once).success).toBe(true);
  expectWellBehavedVMIDefaults(vmiFromTemplate(once.spec.template));
}

describe("upstream examples through the mutators", () => {
  it("finds the examples", () => {
    expect(ofKind("VirtualMachineInstance").length).toBeGreaterThan(10);
    expect(ofKind("VirtualMachine").length).toBeGreaterThan(5);
  });

  describe.each(ofKind("VirtualMachineInstance"))("VMI %s", (_name, example) => {
    it("is admitted with a patch that keeps everything the user wrote", () => {
      const response = mutateVirtualMachineInstance({ operation: "CREATE", object: example.object }, context);
      expect(response.result).toBeUndefined();
      const stored: Record<string, unknown> = structuredClone(example.object);
      for (const op of response.patch ?? []) stored[op.path.slice(1)] = op.value;
      expect(lostOrChangedLeaves(example.object, stored)).toEqual([]);
    });

    it("defaults idempotently to a valid object", () => {
      expectWellBehavedVMIDefaults(VirtualMachineInstanceSchema.parse(example.object));
    });
  });

  describe.each(ofKind("VirtualMachine"))("VM %s", (_name, example) => {
    it("defaults idempotently to a valid object, and so does its VMI", () => {
      expectWellBehavedVMDefaults(VirtualMachineSchema.parse(example.object));
    });
  });

  describe.each(ofKind("VirtualMachineInstanceReplicaSet"))("VMIRS %s", (_name, example) => {
    it("has a template that defaults idempotently", () => {
      const spec = example.object.spec as { template: VirtualMachineInstanceTemplateSpec };
      expectWellBehavedVMIDefaults(VirtualMachineInstanceSchema.parse(vmiFromTemplate(spec.template)));
    });
  });

  describe.each(ofKind("VirtualMachinePool"))("pool %s", (_name, example) => {
    it("has a VM template that defaults idempotently", () => {
      const spec = example.object.spec as { virtualMachineTemplate: { metadata?: object; spec: unknown } };
      const vm = { apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", ...spec.virtualMachineTemplate };
      expectWellBehavedVMDefaults(VirtualMachineSchema.parse(vm));
    });
  });
});

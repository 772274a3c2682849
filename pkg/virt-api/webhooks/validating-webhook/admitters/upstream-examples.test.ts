// Upstream's example objects through the validating admitters, after the mutating webhook's defaults:
// every example of the skeleton's subset is admitted (and so is the VMI its template makes), every other
// one is refused, naming each field kubevirt-ts does not support yet. The launcher's converter must agree:
// it converts the VMI of every admitted example, and every field it refuses the webhook refused first.
import { describe, expect, it } from "vitest";
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceTemplateSpec,
} from "../../../../api/generated/v1.js";
import { VirtualMachineInstanceSchema, VirtualMachineSchema } from "../../../../api/generated/v1.js";
import {
  clusterWith,
  fixedUUID,
  loadUpstreamExamples,
  type UpstreamExample,
} from "../../../../defaults/testing.js";
import { applyVMMutations } from "../../mutating-webhook/mutators/vm-mutator.js";
import { applyNewVMIMutations } from "../../mutating-webhook/mutators/vmi-mutator.js";
import type { ValidationContext, Verdict } from "./admission.js";
import { admitReplicaSet } from "./vmirs-admitter.js";
import { admitVirtualMachinePool } from "./vmpool-admitter.js";
import { admitVMICreate } from "./vmi-create-admitter.js";
import { admitVirtualMachine } from "./vms-admitter.js";
import { convertVMIToDomain } from "../../../../virt-launcher/virtwrap/converter/converter.js";
import { unsupportedFields } from "../../../../virt-launcher/virtwrap/converter/subset.js";
import { testContext } from "../../../../virt-launcher/virtwrap/converter/testing.js";

const CONTROLLER = "system:serviceaccount:kubevirt:kubevirt-controller";
const context: ValidationContext = {
  clusterConfig: clusterWith(),
  kubeVirtServiceAccounts: new Set([CONTROLLER]),
};
const ADMITTED_KINDS = new Set([
  "VirtualMachineInstance",
  "VirtualMachine",
  "VirtualMachineInstanceReplicaSet",
  "VirtualMachinePool",
]);

/**
 * VMs whose size comes from an instance type: their template alone makes no VMI, so only their
 * admission is checked here (pkg/instancetype and the VM controller tests cover the rest).
 */
const SIZED_BY_INSTANCETYPE = new Set([
  "vm-cirros-clarge-virtio.yaml#0",
  "vm-cirros-clarge-windows.yaml#0",
  "vm-cirros-clarge.yaml#0",
  "vm-cirros-cluster-csmall.yaml#0",
  "vm-cirros-csmall.yaml#0",
]);

/** Examples outside the skeleton's subset, with the field of every cause they get. */
const OUTSIDE_THE_SUBSET: Readonly<Record<string, readonly string[]>> = {
  // Upstream refuses sidecars without the Sidecar gate; kubevirt-ts refuses them in any case.
  "vm-cirros-with-sidecar-hook-configmap.yaml#0": [
    "spec.template.metadata.annotations",
    "spec.template.metadata.annotations[hooks.kubevirt.io/hookSidecars]",
  ],
  "vmi-alpine-efi.yaml#0": ["spec.domain.firmware.bootloader.efi"],
  "vmi-dra-pgpu.yaml#0": ["spec.domain.devices.gpus", "spec.resourceClaims"],
  "vmi-fedora-isolated.yaml#0": [
    "spec.domain.cpu.dedicatedCpuPlacement",
    "spec.domain.cpu.isolateEmulatorThread",
  ],
  "vmi-gpu.yaml#0": ["spec.domain.devices.gpus"],
  // Refused by upstream's own rule: the HostDisk feature gate is off by default.
  "vmi-host-disk.yaml#0": ["spec.volumes[0]"],
  // Nothing places the kernel-boot container's files where the converter looks yet.
  "vmi-kernel-boot.yaml#0": ["spec.domain.firmware.kernelBoot"],
  "vmi-secureboot.yaml#0": ["spec.domain.firmware.bootloader.efi"],
  "vmi-sriov.yaml#0": ["spec.domain.devices.interfaces[1].sriov"],
  "vmi-usb.yaml#0": ["spec.HostDevices", "spec.domain.devices.hostDevices"],
  "vmi-windows.yaml#0": [
    "spec.domain.devices.tpm",
    "spec.domain.features.hyperv",
    "spec.domain.firmware.bootloader.efi",
  ],
  "vmi-with-sidecar-hook-configmap.yaml#0": [
    "metadata.annotations",
    "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
  ],
  "vmi-with-sidecar-hook.yaml#0": [
    "metadata.annotations",
    "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
  ],
};

function mutatedVMI(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const result = applyNewVMIMutations(vmi, context.clusterConfig, { newUUID: fixedUUID });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** The VMI a VM or replica set creates from its template, as the mutating webhook leaves it. */
function vmiFromTemplate(template: VirtualMachineInstanceTemplateSpec): VirtualMachineInstance {
  return mutatedVMI({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { ...template.metadata, name: "from-template", namespace: "default" },
    spec: template.spec ?? { domain: { devices: {} } },
  });
}

/** The VMI template of a VM or replica set, or of the VM template of a pool, and its path in the example. */
function templateOf(example: UpstreamExample): {
  template: VirtualMachineInstanceTemplateSpec;
  root: string;
} {
  if (example.object.kind === "VirtualMachinePool") {
    const spec = example.object.spec as {
      virtualMachineTemplate: { spec: { template: VirtualMachineInstanceTemplateSpec } };
    };
    return {
      template: spec.virtualMachineTemplate.spec.template,
      root: "spec.virtualMachineTemplate.spec.template.",
    };
  }
  const spec = example.object.spec as { template: VirtualMachineInstanceTemplateSpec };
  return { template: spec.template, root: "spec.template." };
}

/** The VMI an example is, or the one its template makes, with the path its fields have in the example. */
function vmiOf(example: UpstreamExample): { vmi: VirtualMachineInstance; root: string } {
  if (example.object.kind === "VirtualMachineInstance") {
    return { vmi: mutatedVMI(VirtualMachineInstanceSchema.parse(example.object)), root: "" };
  }
  const { template, root } = templateOf(example);
  return { vmi: vmiFromTemplate(template), root };
}

/** What the converter refuses in an example's VMI, as the admitters must word it for the example. */
function refusedByConverter(example: UpstreamExample): Array<{ field: string; message: string }> {
  const { vmi, root } = vmiOf(example);
  return unsupportedFields(vmi).map(({ field, message }) => ({
    field: `${root}${field}`,
    message: message.replace(field, `${root}${field}`),
  }));
}

/** Admits an example as the apiserver would send it (after the mutating webhook). */
function admit(example: UpstreamExample): Verdict {
  const { object } = example;
  switch (object.kind) {
    case "VirtualMachineInstance": {
      const vmi = mutatedVMI(VirtualMachineInstanceSchema.parse(object));
      return admitVMICreate({ operation: "CREATE", object: vmi, username: "alice" }, context);
    }
    case "VirtualMachine": {
      const vm = applyVMMutations(VirtualMachineSchema.parse(object), "CREATE", {
        ...context,
        newUUID: fixedUUID,
      });
      return admitVirtualMachine({ operation: "CREATE", object: vm, username: "alice" }, context);
    }
    case "VirtualMachinePool":
      return admitVirtualMachinePool({ operation: "CREATE", object, username: "alice" }, context);
    default:
      return admitReplicaSet({ operation: "CREATE", object, username: "alice" }, context);
  }
}

/** How a refusal reads: outside the subset, or upstream's own feature gate refusal. */
const CLEAR_REFUSAL = /is not supported by kubevirt-ts yet|feature gate is not enabled/;

const examples = loadUpstreamExamples().filter((example) => ADMITTED_KINDS.has(String(example.object.kind)));
const inSubset = examples.filter(
  (example) => !(example.name in OUTSIDE_THE_SUBSET) && !SIZED_BY_INSTANCETYPE.has(example.name),
);
const sized = examples.filter((example) => SIZED_BY_INSTANCETYPE.has(example.name));
const outside = examples.filter((example) => example.name in OUTSIDE_THE_SUBSET);

describe("upstream examples through the validating admitters", () => {
  it("finds examples on both sides", () => {
    expect(inSubset.length).toBeGreaterThanOrEqual(11);
    expect(sized.map((example) => example.name).sort()).toEqual([...SIZED_BY_INSTANCETYPE].sort());
    expect(outside.map((example) => example.name).sort()).toEqual(Object.keys(OUTSIDE_THE_SUBSET).sort());
  });

  describe.each(inSubset.map((example) => [example.name, example] as const))("%s", (_name, example) => {
    it("is admitted", () => {
      expect(admit(example).causes).toEqual([]);
    });

    it("gives a VMI the launcher's converter turns into a domain", () => {
      const { vmi } = vmiOf(example);
      expect(() => convertVMIToDomain(vmi, testContext(vmi))).not.toThrow();
    });

    if (example.object.kind !== "VirtualMachineInstance") {
      it("makes a VMI from its template that is admitted", () => {
        const vmi = vmiFromTemplate(templateOf(example).template);
        expect(
          admitVMICreate({ operation: "CREATE", object: vmi, username: CONTROLLER }, context).causes,
        ).toEqual([]);
      });
    }
  });

  it.each(sized.map((example) => [example.name, example] as const))(
    "%s is admitted (its instance type is not looked up here)",
    (_name, example) => {
      expect(admit(example).causes).toEqual([]);
    },
  );

  describe.each(outside.map((example) => [example.name, example] as const))("%s", (name, example) => {
    it("is refused, naming what kubevirt-ts does not support yet or the feature gate that is off", () => {
      const causes = admit(example).causes;
      expect(causes.map((cause) => cause.field)).toEqual(OUTSIDE_THE_SUBSET[name]);
      expect(causes.some((cause) => CLEAR_REFUSAL.test(cause.message ?? ""))).toBe(true);
    });

    it("names everything the launcher's converter refuses, in the converter's words", () => {
      const causes = admit(example).causes.map(({ field, message }) => ({ field, message }));
      for (const refused of refusedByConverter(example)) expect(causes).toContainEqual(refused);
    });
  });
});

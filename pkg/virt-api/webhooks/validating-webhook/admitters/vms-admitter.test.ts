// The VM admitter end to end: the template is validated with defaults applied, run strategy rules,
// staged answers, warnings, and features kubevirt-ts cannot serve yet.
import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { AdmissionOperation, ValidationContext } from "./admission.js";
import { specPath } from "../../../../api/causes.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../../api/generated/v1beta1.js";
import { applyNewVMIMutations } from "../../mutating-webhook/mutators/vmi-mutator.js";
import { admitVMICreate } from "./vmi-create-admitter.js";
import { InstancetypeVMAdmitter } from "../../../../instancetype/webhooks/vm/admitter.js";
import {
  admitVirtualMachine,
  admitVirtualMachineWithInstancetypes,
  RunningDeprecationWarning,
  validateVirtualMachineSpec,
} from "./vms-admitter.js";
import { duplicate, invalid, notSupported, required, specWith, validSpec } from "./testing.js";

const context: ValidationContext = { clusterConfig: clusterWith(), kubeVirtServiceAccounts: new Set() };

function vm(
  spec: Partial<VirtualMachine["spec"]> = {},
  metadata: VirtualMachine["metadata"] = { name: "vm" },
): VirtualMachine {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata,
    spec: { runStrategy: "Always", template: { spec: validSpec() }, ...spec },
  };
}

const admit = (object: unknown, operation: AdmissionOperation = "CREATE") =>
  admitVirtualMachine({ operation, object, username: "alice" }, context);

describe("VM admitter", () => {
  it("admits the skeleton's VM", () => {
    expect(admit(vm())).toEqual({ causes: [], warnings: [] });
  });

  it("refuses running together with runStrategy, with upstream's message", () => {
    expect(admit(vm({ running: true })).causes).toEqual([
      invalid(
        "spec.running",
        "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
      ),
    ]);
  });

  it("warns that running is deprecated", () => {
    expect(admit(vm({ runStrategy: undefined, running: false }))).toEqual({
      causes: [],
      warnings: [RunningDeprecationWarning],
    });
  });

  it("validates the template at spec.template.spec", () => {
    const spec = specWith((s) => s.domain.devices.disks?.push({ name: "orphan" }));
    expect(admit(vm({ template: { spec } })).causes).toEqual([
      invalid(
        "spec.template.spec.domain.devices.disks[2].name",
        "spec.template.spec.domain.devices.disks[2].Name 'orphan' not found.",
      ),
    ]);
  });

  it("does not ask a template to use every volume or to request memory (VMI-only rules)", () => {
    const spec = specWith((s) => {
      s.volumes?.push({ name: "spare", emptyDisk: { capacity: "1Gi" } });
      s.domain.resources = {};
    });
    expect(admit(vm({ template: { spec } })).causes).toEqual([]);
  });

  it("validates the template after the VM defaults (a missing interface is defaulted)", () => {
    const spec = specWith((s) => {
      delete s.domain.devices.interfaces;
      delete s.networks;
    });
    expect(admit(vm({ template: { spec } })).causes).toEqual([]);
  });

  it("refuses discontinued bindings on creation only, then by the binding rule", () => {
    const spec = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", slirp: {} }]));
    expect(admit(vm({ template: { spec } })).causes).toEqual([
      invalid(
        "spec.domain.devices.interfaces[0].slirp",
        "Slirp interface support has been discontinued since v1.3",
      ),
    ]);
    expect(admit(vm({ template: { spec } }), "UPDATE").causes).toEqual([
      invalid(
        "spec.template.spec.domain.devices.interfaces[0]",
        "logical default interface must have exactly one binding method or binding plugin",
      ),
      notSupported(
        "spec.template.spec.domain.devices.interfaces[0].slirp",
        "the slirp interface binding is not supported by kubevirt-ts yet (supported: masquerade, bridge)",
      ),
    ]);
  });

  it("collects every cause of the spec stage", () => {
    const spec = specWith((s) => {
      s.domain.devices.interfaces?.push({ name: "default", masquerade: {} });
      s.domain.devices.disks?.push({ name: "orphan" });
    });
    expect(admit(vm({ running: true, template: { spec } })).causes).toEqual([
      duplicate(
        "spec.template.spec.domain.devices.interfaces[1].name",
        "Only one interface can be connected to one specific network",
      ),
      invalid(
        "spec.template.spec.domain.devices.disks[2].name",
        "spec.template.spec.domain.devices.disks[2].Name 'orphan' not found.",
      ),
      invalid(
        "spec.running",
        "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
      ),
    ]);
  });

  it("checks live-update bounds (the socket rule also fires from the template rules, as upstream)", () => {
    const spec = specWith((s) => {
      s.domain.cpu = { sockets: 4, maxSockets: 2 };
      s.domain.memory = { guest: "1Gi", maxGuest: "512Mi" };
    });
    const sockets = invalid(
      "spec.template.spec.domain.cpu.sockets",
      "Number of sockets in CPU topology is greater than the maximum sockets allowed",
    );
    expect(admit(vm({ template: { spec } })).causes).toEqual([
      sockets,
      sockets,
      invalid(
        "spec.template.spec.domain.memory.guest",
        "Guest memory is greater than the configured maxGuest memory",
      ),
    ]);
  });

  it("answers a spec without template like upstream", () => {
    const spec = { runStrategy: "Always" } as unknown as VirtualMachine["spec"];
    expect(validateVirtualMachineSpec(specPath(), spec, context.clusterConfig, false)).toEqual([
      required("spec.template", "missing virtual machine template."),
    ]);
  });

  it("lets a VM being deleted through", () => {
    const deleting = vm({ running: true }, { name: "vm", deletionTimestamp: "2024-01-01T00:00:00Z" });
    expect(admit(deleting).causes).toEqual([]);
  });

  it("checks data volume templates as upstream's storage admitter does, and admits instance types", () => {
    const template = { metadata: { name: "root" }, spec: { storage: {}, source: { blank: {} } } };
    const referenced = validSpec();
    referenced.volumes = [...(referenced.volumes ?? []), { name: "root", dataVolume: { name: "root" } }];
    referenced.domain.devices.disks = [...(referenced.domain.devices.disks ?? []), { name: "root" }];
    const withTemplates = (templates: unknown[], spec = referenced, metadata = { name: "vm" }) =>
      vm({ template: { spec }, dataVolumeTemplates: templates as never }, metadata);
    expect(
      admit(
        vm({ instancetype: { name: "u1.small" }, preference: { name: "fedora" }, dataVolumeTemplates: [] }),
      ).causes,
    ).toEqual([]);
    expect(admit(withTemplates([template])).causes).toEqual([]);
    expect(admit(withTemplates([template], validSpec())).causes).toEqual([
      required(
        "spec.dataVolumeTemplate[0]",
        "DataVolumeTemplate entry spec.dataVolumeTemplate[0] must be referenced in the VMI template's 'volumes' list",
      ),
    ]);
    const elsewhere = { ...template, metadata: { name: "root", namespace: "other" } };
    expect(
      admit(withTemplates([elsewhere], referenced, { name: "vm", namespace: "mine" } as never)).causes,
    ).toEqual([
      invalid(
        "spec.dataVolumeTemplates[0]",
        "Embedded DataVolume namespace other differs from VM namespace mine",
      ),
    ]);
  });

  it("answers schema errors with their paths", () => {
    expect(admit({ apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", spec: {} }).causes).toEqual([
      required("spec.template", "Required value"),
    ]);
  });
});

describe("VM admitter with instance types", () => {
  const sized = (spec: Partial<VirtualMachine["spec"]> = {}) => {
    const template = validSpec();
    delete template.domain.resources;
    return vm({ instancetype: { name: "u1.small" }, template: { spec: template }, ...spec });
  };
  const found = (instancetype: VirtualMachineInstancetypeSpec | undefined, warnings: string[] = []) =>
    new InstancetypeVMAdmitter(
      {
        find: async (v) => {
          if (v.spec.instancetype?.name === "missing") throw new Error('"missing" not found');
          return instancetype;
        },
      },
      { findPreference: async () => ({ cpu: { preferredCPUTopology: "spread" } }) },
      (message) => warnings.push(message),
    );
  const admitWith = (object: VirtualMachine, admitter: InstancetypeVMAdmitter) =>
    admitVirtualMachineWithInstancetypes(
      { operation: "CREATE", object, username: "alice" },
      context,
      admitter,
    );

  it("validates the template with the instance type applied", async () => {
    const admitter = found({ cpu: { guest: 2 }, memory: { guest: "128Mi" } });
    expect(await admitWith(sized({ preference: { name: "p" } }), admitter)).toEqual({
      causes: [],
      warnings: [],
    });
  });

  it("refuses a template that sets what the instance type sets, with upstream's message and path", async () => {
    const vmSpec = sized();
    vmSpec.spec.template.spec!.domain.cpu = { sockets: 2 };
    const verdict = await admitWith(vmSpec, found({ cpu: { guest: 2 }, memory: { guest: "128Mi" } }));
    expect(verdict.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.template.spec.domain.cpu.sockets",
        message: "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
      },
    ]);
  });

  it("refuses vCPUs a spread preference cannot divide", async () => {
    const verdict = await admitWith(
      sized({ preference: { name: "p" } }),
      found({ cpu: { guest: 3 }, memory: { guest: "128Mi" } }),
    );
    expect(verdict.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "instancetype.spec.cpu.guest",
        message:
          "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio " +
          "or Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference",
      },
    ]);
  });

  it("gives a template whose VMI, with the instance type applied, is admitted", async () => {
    const applied = structuredClone(sized({ preference: { name: "p" } }));
    await found({ cpu: { guest: 2 }, memory: { guest: "128Mi" } }).applyToVM(applied);
    const mutated = applyNewVMIMutations(
      { metadata: { name: "vm", namespace: "default" }, spec: applied.spec.template.spec! },
      context.clusterConfig,
      { newUUID: () => "uuid" },
    );
    if (!mutated.ok) throw new Error(mutated.message);
    expect(mutated.value.spec.domain.cpu).toMatchObject({ sockets: 1, cores: 2, threads: 1 });
    expect(
      admitVMICreate({ operation: "CREATE", object: mutated.value, username: "alice" }, context).causes,
    ).toEqual([]);
  });

  const requiring = (requirements: VirtualMachinePreferenceSpec["requirements"]) =>
    new InstancetypeVMAdmitter(
      {
        find: async (v) =>
          v.spec.instancetype ? { cpu: { guest: 2 }, memory: { guest: "128Mi" } } : undefined,
      },
      { findPreference: async () => ({ requirements }) },
    );

  it("refuses an instance type short of the preference's required vCPUs, with upstream's cause", async () => {
    const verdict = await admitWith(sized({ preference: { name: "p" } }), requiring({ cpu: { guest: 4 } }));
    expect(verdict.causes).toEqual([
      {
        reason: "FieldValueNotFound",
        field: "spec.instancetype",
        message:
          "failure checking preference requirements: insufficient CPU resources of 2 vCPU provided by " +
          "instance type, preference requires 4 vCPU",
      },
    ]);
  });

  it("checks a VM without instance type against its own defaulted domain", async () => {
    const own = vm({ preference: { name: "p" } });
    own.spec.template.spec!.domain.memory = { guest: "1Gi" };
    expect((await admitWith(own, requiring({ memory: { guest: "2Gi" } }))).causes).toEqual([
      {
        reason: "FieldValueNotFound",
        field: "spec.template.spec.domain.memory",
        message:
          "failure checking preference requirements: insufficient Memory resources of 1Gi provided by " +
          "VirtualMachine, preference requires 2Gi",
      },
    ]);
    // The defaulted architecture is what the requirement meets.
    expect((await admitWith(own, requiring({ architecture: "amd64" }))).causes).toEqual([]);
    expect((await admitWith(own, requiring({ architecture: "arm64" }))).causes).toEqual([
      {
        reason: "FieldValueNotFound",
        field: "spec.template.spec.architecture",
        message:
          "failure checking preference requirements: preference requires architecture arm64 but amd64 " +
          "is being requested",
      },
    ]);
  });

  it("only warns about a reference it cannot find, as upstream (the controller reports it)", async () => {
    const warnings: string[] = [];
    const withMemory = vm({ instancetype: { name: "missing" } });
    const verdict = await admitWith(withMemory, found(undefined, warnings));
    expect(verdict.causes).toEqual([]);
    expect(warnings).toEqual(['ignoring err "\\"missing\\" not found" when looking for instance type']);
  });
});

import { describe, expect, it } from "vitest";
import type { KubeVirt, VirtualMachine } from "../../api/generated/v1.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import { Conflict } from "../conflict/conflicts.js";
import { Path } from "../../api/field.js";
import { KubeClient } from "../../controller/client.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import { vmiApplier } from "../apply/vmi.js";
import { clientFinders } from "../find/client.js";
import { clusterInstancetypesGVR, preferencesGVR } from "../find/resources.js";
import { Expander, type PreferenceSpecFinder, type SpecFinder, type VMIApplier } from "./expand.js";

const vm = (spec: Partial<VirtualMachine["spec"]> = {}): VirtualMachine => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name: "test-vm", namespace: "test-namespace" },
  spec: {
    template: {
      spec: { domain: { devices: {} }, volumes: [{ name: "volumeName", containerDisk: { image: "i" } }] },
    },
    ...spec,
  },
  status: {
    instancetypeRef: { name: "u1.small", controllerRevisionRef: { name: "rev-it" } },
    preferenceRef: { name: "fedora", controllerRevisionRef: { name: "rev-pref" } },
  },
});

const defaults = () => ClusterConfig.defaults();

/** Finders that must not be asked: a VM without references is never looked up. */
const unasked: SpecFinder & PreferenceSpecFinder = {
  find: () => Promise.reject(new Error("looked up an instance type")),
  findPreference: () => Promise.reject(new Error("looked up a preference")),
};

describe("a VM that references no instance type or preference", () => {
  it("is returned as it is, not even defaulted, and nothing is looked up", async () => {
    const input = vm();
    expect(await new Expander(defaults, unasked, unasked).expand(input)).toBe(input);
  });
});

describe("with finders and an applier plugged in", () => {
  const instancetypeFinder: SpecFinder = {
    find: async (target) =>
      target.spec.instancetype ? { cpu: { guest: 2 }, memory: { guest: "128Mi" } } : undefined,
  };
  const preferenceFinder: PreferenceSpecFinder = {
    findPreference: async (target) =>
      target.spec.preference ? { devices: { preferredDiskBus: "virtio" } } : undefined,
  };
  /** Writes the guest CPU and memory, the preferred disk bus, and refuses CPU sockets the VM set itself. */
  const applier: VMIApplier = {
    applyToVMI: (field, instancetypeSpec, preferenceSpec, spec, metadata) => {
      if (spec.domain.cpu?.sockets !== undefined)
        return [new Conflict(field.child("domain", "cpu", "sockets"))];
      if (instancetypeSpec) {
        spec.domain.cpu = { ...spec.domain.cpu, cores: instancetypeSpec.cpu.guest };
        spec.domain.memory = { guest: instancetypeSpec.memory.guest };
      }
      for (const disk of spec.domain.devices.disks ?? []) {
        disk.disk = { bus: preferenceSpec?.devices?.preferredDiskBus ?? "sata" };
      }
      metadata.annotations = { applied: "yes" };
      return [];
    },
  };
  const expander = new Expander(defaults, instancetypeFinder, preferenceFinder, applier);
  const references = { instancetype: { name: "u1.small" }, preference: { name: "fedora" } };

  it("applies the specs after the default disk and network, defaults the rest, and drops the references", async () => {
    const input = vm(references);
    const before = structuredClone(input);
    const expanded = await expander.expand(input);
    expect(input).toEqual(before);
    expect(expanded.spec.instancetype).toBeUndefined();
    expect(expanded.spec.preference).toBeUndefined();
    expect(expanded.status).toEqual({});
    const template = expanded.spec.template;
    expect(template.metadata?.annotations).toEqual({ applied: "yes" });
    expect(template.spec?.domain.cpu?.cores).toBe(2);
    expect(template.spec?.domain.memory?.guest).toBe("128Mi");
    // The volume's disk existed before the preference was applied, so it got the preferred bus.
    expect(template.spec?.domain.devices.disks).toEqual([{ name: "volumeName", disk: { bus: "virtio" } }]);
    expect(template.spec?.networks).toEqual([{ name: "default", pod: {} }]);
    expect(template.spec?.domain.devices.interfaces).toEqual([{ name: "default", bridge: {} }]);
    // SetDefaultVirtualMachineInstanceSpec ran after the applier.
    expect(template.spec?.architecture).toBe("amd64");
    expect(template.spec?.domain.machine).toEqual({ type: "q35" });
  });

  it("refuses a VM that sets what its instance type sets, naming the field", async () => {
    const input = vm(references);
    input.spec.template.spec = { ...input.spec.template.spec!, domain: { devices: {}, cpu: { sockets: 4 } } };
    await expect(expander.expand(input)).rejects.toThrow(
      "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
    );
  });

  it("passes a lookup's failure on", async () => {
    const missing = new Expander(
      defaults,
      {
        find: async () => {
          throw new Error('virtualmachineclusterinstancetypes.instancetype.kubevirt.io "nope" not found');
        },
      },
      unasked,
    );
    await expect(missing.expand(vm({ instancetype: { name: "nope" } }))).rejects.toThrow("not found");
  });

  it("refuses when the default pod network may not be added", async () => {
    const kubeVirt: KubeVirt = {
      metadata: { name: "kubevirt", namespace: "kubevirt" },
      spec: {
        configuration: {
          network: { defaultNetworkInterface: "bridge", permitBridgeInterfaceOnPodNetwork: false },
        },
      },
      status: { phase: "Deployed" },
    };
    const strict = new Expander(
      () => ClusterConfig.fromKubeVirt(kubeVirt),
      instancetypeFinder,
      preferenceFinder,
      applier,
    );
    await expect(strict.expand(vm(references))).rejects.toThrow(
      "bridge interface is not enabled in kubevirt-config",
    );
  });

  it("names every conflict in one error", () => {
    const conflicts = [new Conflict(Path.of("spec", "a")), new Conflict(Path.of("spec", "b"), "own words")];
    expect(conflicts.map((conflict) => conflict.error())).toEqual([
      "VM field(s) spec.a conflicts with selected instance type",
      "own words",
    ]);
  });
});

describe("the expander with the real finders and applier", () => {
  const server = new FakeApiServer();
  server.seed(tableOf(clusterInstancetypesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachineClusterInstancetype",
    metadata: { name: "u1.small" },
    spec: { cpu: { guest: 2 }, memory: { guest: "128Mi" } },
  });
  server.seed(tableOf(preferencesGVR), {
    apiVersion: "instancetype.kubevirt.io/v1beta1",
    kind: "VirtualMachinePreference",
    metadata: { name: "fedora", namespace: "test-namespace" },
    spec: { cpu: { preferredCPUTopology: "cores" }, devices: { preferredDiskBus: "sata" } },
  });
  const finders = clientFinders(new KubeClient(server));
  const expander = new Expander(defaults, finders.instancetype, finders.preference, vmiApplier);
  const references = {
    instancetype: { name: "u1.small" },
    preference: { name: "fedora", kind: "VirtualMachinePreference" },
  };
  const live = (spec: Partial<VirtualMachine["spec"]>): VirtualMachine => {
    const out = vm(spec);
    delete out.status;
    return out;
  };

  it("writes the instance type and preference into the template and drops the references", async () => {
    const expanded = await expander.expand(live(references));
    expect(expanded.spec.instancetype).toBeUndefined();
    expect(expanded.spec.preference).toBeUndefined();
    const domain = expanded.spec.template.spec?.domain;
    expect(domain?.cpu).toMatchObject({ sockets: 1, cores: 2, threads: 1 });
    expect(domain?.memory?.guest).toBe("128Mi");
    expect(domain?.devices.disks?.[0]?.disk?.bus).toBe("sata");
  });

  it("refuses a template that sets what the instance type sets, with upstream's message", async () => {
    const spec = live(references);
    spec.spec.template.spec!.domain.cpu = { sockets: 2 };
    await expect(expander.expand(spec)).rejects.toThrow(
      "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
    );
  });

  it("passes a missing instance type's NotFound through", async () => {
    await expect(expander.expand(live({ instancetype: { name: "nope" } }))).rejects.toThrow(
      '"nope" not found',
    );
  });
});

import { describe, expect, it } from "vitest";
import type { DomainSpec, VirtualMachine } from "../../../../api/generated/v1.js";
import { clusterWith, valueAt } from "../../../../defaults/testing.js";
import type { AdmissionOperation, MutationResponse } from "./admission.js";
import { mutateVirtualMachine, mutateVirtualMachineWithPreference } from "./vm-mutator.js";

function newVM(domain: DomainSpec = { devices: {} }): VirtualMachine {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm-cirros", namespace: "default", labels: { app: "demo" } },
    spec: {
      runStrategy: "Halted",
      template: { metadata: { labels: { "kubevirt.io/vm": "vm-cirros" } }, spec: { domain } },
    },
  };
}

let counter = 0;
const uuids = () => `uuid-${++counter}`;

function mutate(vm: unknown, operation: AdmissionOperation = "CREATE"): MutationResponse {
  counter = 0;
  return mutateVirtualMachine({ operation, object: vm }, { clusterConfig: clusterWith(), newUUID: uuids });
}

function patchedSpec(response: MutationResponse): unknown {
  return response.patch?.find((op) => op.path === "/spec")?.value;
}

describe("VM mutator", () => {
  it("replaces spec and metadata", () => {
    const response = mutate(newVM());
    expect(response.allowed).toBe(true);
    expect(response.patch?.map((op) => `${op.op} ${op.path}`)).toEqual([
      "replace /spec",
      "replace /metadata",
    ]);
    expect(response.patch?.[1]?.value).toEqual(newVM().metadata);
  });

  it.each<[string, AdmissionOperation, Record<string, unknown>]>([
    [
      "a new VM gets a firmware UUID and serial",
      "CREATE",
      { "template.spec.domain.firmware": { uuid: "uuid-1", serial: "uuid-2" } },
    ],
    [
      "an updated VM gets no firmware UUID (the VM controller owns it then)",
      "UPDATE",
      { "template.spec.domain.firmware": undefined },
    ],
    ["every VM gets the template's architecture", "UPDATE", { "template.spec.architecture": "amd64" }],
    ["every VM gets the template's machine type", "UPDATE", { "template.spec.domain.machine.type": "q35" }],
    [
      "a new VM's template gets PCI topology v3",
      "CREATE",
      { "template.metadata.annotations": { "kubevirt.io/pci-topology-version": "v3" } },
    ],
    [
      "an updated VM's template gets no PCI topology version",
      "UPDATE",
      { "template.metadata.annotations": undefined },
    ],
    [
      "the template is not defaulted like a VMI",
      "CREATE",
      { "template.spec.domain.cpu": undefined, "template.spec.networks": undefined },
    ],
    ["the run strategy is left as given", "CREATE", { runStrategy: "Halted" }],
  ])("%s", (_rule, operation, expected) => {
    const spec = patchedSpec(mutate(newVM(), operation));
    for (const [path, value] of Object.entries(expected)) expect(valueAt(spec, path), path).toEqual(value);
  });

  it("keeps a given firmware UUID and serial", () => {
    const spec = patchedSpec(mutate(newVM({ devices: {}, firmware: { uuid: "mine", serial: "S1" } })));
    expect(valueAt(spec, "template.spec.domain.firmware")).toEqual({ uuid: "mine", serial: "S1" });
  });

  it.each<AdmissionOperation>(["CREATE", "UPDATE"])(
    "writes numeric quantities as Go does on %s",
    (operation) => {
      const domain = {
        devices: {},
        resources: { requests: { cpu: 0.5, memory: 2222222.2 }, limits: { cpu: 2 } },
      } as unknown as DomainSpec;
      const vm = newVM(domain);
      vm.spec.dataVolumeTemplates = [
        { metadata: { name: "dv" }, spec: { storage: { resources: { requests: { storage: 1.5e9 } } } } },
      ];
      const spec = patchedSpec(mutate(vm, operation));
      expect(valueAt(spec, "template.spec.domain.resources")).toEqual({
        requests: { cpu: "500m", memory: "2222222200m" },
        limits: { cpu: "2" },
      });
      expect(valueAt(spec, "dataVolumeTemplates")).toEqual([
        { metadata: { name: "dv" }, spec: { storage: { resources: { requests: { storage: "1500M" } } } } },
      ]);
    },
  );

  it("changes nothing for a VM being deleted", () => {
    const vm = newVM();
    vm.metadata = { ...vm.metadata, deletionTimestamp: "2024-01-01T00:00:00Z" };
    expect(mutate(vm, "UPDATE")).toEqual({ allowed: true });
  });

  it("refuses a VM without a template with a 422", () => {
    const response = mutate({ metadata: { name: "x" }, spec: { runStrategy: "Always" } });
    expect(response.allowed).toBe(false);
    expect(response.result?.details?.causes.map((cause) => cause.field)).toEqual(["spec.template"]);
  });

  it("does not change the object it was given", () => {
    const vm = newVM();
    const before = structuredClone(vm);
    mutate(vm);
    expect(vm).toEqual(before);
  });
});

describe("VM mutator with instance types", () => {
  it("writes the preference's machine type and architecture before the defaults", async () => {
    const vm = { ...newVM(), spec: { ...newVM().spec, preference: { name: "fedora" } } };
    const response = await mutateVirtualMachineWithPreference(
      { operation: "CREATE", object: vm },
      { clusterConfig: clusterWith(), newUUID: uuids },
      {
        preferenceOf: async () => ({
          machine: { preferredMachineType: "pc-q35-rhel9.6.0" },
          preferredArchitecture: "arm64",
        }),
      },
    );
    expect(valueAt(patchedSpec(response), "template.spec.domain.machine.type")).toBe("pc-q35-rhel9.6.0");
    expect(valueAt(patchedSpec(response), "template.spec.architecture")).toBe("arm64");
  });

  it("patches the preference's storage class into DataVolumeTemplates naming none", async () => {
    const vm = {
      ...newVM(),
      spec: {
        ...newVM().spec,
        preference: { name: "fedora" },
        dataVolumeTemplates: [
          { metadata: { name: "root" }, spec: { storage: { resources: { requests: { storage: "1Gi" } } } } },
        ],
      },
    };
    const response = await mutateVirtualMachineWithPreference(
      { operation: "CREATE", object: vm },
      { clusterConfig: clusterWith(), newUUID: uuids },
      { preferenceOf: async () => ({ volumes: { preferredStorageClassName: "local" } }) },
    );
    expect(valueAt(patchedSpec(response), "dataVolumeTemplates")).toEqual([
      {
        metadata: { name: "root" },
        spec: { storage: { resources: { requests: { storage: "1Gi" } }, storageClassName: "local" } },
      },
    ]);
  });

  it("infers the matchers from their volume before looking the preference up", async () => {
    const vm = {
      ...newVM(),
      spec: {
        ...newVM().spec,
        instancetype: { inferFromVolume: "root" },
        preference: { inferFromVolume: "root" },
      },
    };
    const looked: unknown[] = [];
    const response = await mutateVirtualMachineWithPreference(
      { operation: "CREATE", object: vm },
      { clusterConfig: clusterWith(), newUUID: uuids },
      {
        preferenceOf: async (seen) => {
          looked.push(seen.spec.preference);
          return undefined;
        },
        infer: async (seen) => {
          seen.spec.instancetype = { name: "u1.small" };
          seen.spec.preference = { name: "fedora" };
        },
      },
    );
    expect(valueAt(patchedSpec(response), "instancetype")).toEqual({ name: "u1.small" });
    expect(valueAt(patchedSpec(response), "preference")).toEqual({ name: "fedora" });
    expect(looked).toEqual([{ name: "fedora" }]);
  });

  it("refuses the VM with the inference's error as a BadRequest, as upstream", async () => {
    const vm = { ...newVM(), spec: { ...newVM().spec, instancetype: { inferFromVolume: "root" } } };
    const response = await mutateVirtualMachineWithPreference(
      { operation: "CREATE", object: vm },
      { clusterConfig: clusterWith(), newUUID: uuids },
      {
        preferenceOf: async () => undefined,
        infer: async () => {
          throw new Error("unable to find volume root to infer defaults");
        },
      },
    );
    expect(response.allowed).toBe(false);
    expect(response.result).toMatchObject({
      code: 400,
      message: "unable to find volume root to infer defaults",
    });
  });

  it("refuses a matcher without a name, in upstream's words", () => {
    const vm = { ...newVM(), spec: { ...newVM().spec, instancetype: {} } };
    expect(mutate(vm).result?.details?.causes).toEqual([
      {
        reason: "FieldValueNotFound",
        field: "spec.instancetype",
        message: "Either Name or InferFromVolume should be provided within the InstancetypeMatcher",
      },
    ]);
  });

  it("refuses renaming a pinned matcher without clearing its revisionName", () => {
    const pinned = (name: string) => ({
      ...newVM(),
      spec: { ...newVM().spec, preference: { name, revisionName: "rev" } },
    });
    const response = mutateVirtualMachine(
      { operation: "UPDATE", object: pinned("new"), oldObject: pinned("old") },
      { clusterConfig: clusterWith(), newUUID: uuids },
    );
    expect(response.result?.details?.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.preference.revisionName",
        message: "the Matcher Name has been updated without updating the RevisionName",
      },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../api/generated/v1.js";
import { KubeClient } from "../../controller/client.js";
import { isNotFound } from "../../controller/api-error.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import { controllerRevisionsGVR } from "../../controller/resources.js";
import { clientFinders } from "./client.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  ControllerRevisionObjectNameLabel,
  instancetypesGVR,
  preferencesGVR,
} from "./resources.js";
import { cachedGetter } from "./spec.js";

const vm = (spec: Partial<VirtualMachine["spec"]>, status?: VirtualMachine["status"]): VirtualMachine => ({
  metadata: { name: "vm", namespace: "ns" },
  spec: { template: {}, ...spec },
  ...(status ? { status } : {}),
});

const object = (kind: string, name: string, namespace: string | undefined, guest: number) => ({
  apiVersion: "instancetype.kubevirt.io/v1beta1",
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { cpu: { guest }, memory: { guest: "1Gi" } },
});

function setup() {
  const server = new FakeApiServer();
  server.seed(
    tableOf(clusterInstancetypesGVR),
    object("VirtualMachineClusterInstancetype", "it", undefined, 1),
  );
  server.seed(
    tableOf(clusterInstancetypesGVR),
    object("VirtualMachineClusterInstancetype", "it2", undefined, 3),
  );
  server.seed(tableOf(instancetypesGVR), object("VirtualMachineInstancetype", "it", "ns", 2));
  server.seed(tableOf(clusterPreferencesGVR), {
    ...object("VirtualMachineClusterPreference", "pref", undefined, 0),
    spec: { cpu: { preferredCPUTopology: "cores" } },
  });
  server.seed(tableOf(preferencesGVR), {
    ...object("VirtualMachinePreference", "pref", "ns", 0),
    spec: { cpu: { preferredCPUTopology: "threads" } },
  });
  server.seed(tableOf(controllerRevisionsGVR), {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name: "stored", namespace: "ns", labels: { [ControllerRevisionObjectNameLabel]: "it" } },
    data: object("VirtualMachineClusterInstancetype", "it", undefined, 8),
    revision: 1,
  });
  server.seed(tableOf(controllerRevisionsGVR), {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name: "pref-stored", namespace: "ns" },
    data: {
      ...object("VirtualMachinePreference", "pref", "ns", 0),
      spec: { cpu: { preferredCPUTopology: "spread" } },
    },
    revision: 1,
  });
  return clientFinders(new KubeClient(server));
}

describe("instancetype spec finder", () => {
  it("returns nothing for a VM without a matcher", async () => {
    const { instancetype, preference } = setup();
    await expect(instancetype.find(vm({}))).resolves.toBeUndefined();
    await expect(preference.findPreference(vm({}))).resolves.toBeUndefined();
  });

  it("defaults to the cluster kind and reads namespaced kinds in the VM's namespace, any spelling", async () => {
    const { instancetype } = setup();
    expect((await instancetype.find(vm({ instancetype: { name: "it" } })))?.cpu.guest).toBe(1);
    for (const kind of ["VirtualMachineInstancetype", "virtualmachineinstancetypes"]) {
      expect((await instancetype.find(vm({ instancetype: { name: "it", kind } })))?.cpu.guest).toBe(2);
    }
    const cluster = { name: "it", kind: "VirtualMachineClusterInstancetypes" };
    expect((await instancetype.find(vm({ instancetype: cluster })))?.cpu.guest).toBe(1);
  });

  it("reads a pinned revision, and a status ref only when labelled with the matched name", async () => {
    const { instancetype } = setup();
    const pinned = vm({ instancetype: { name: "it", revisionName: "stored" } });
    expect((await instancetype.find(pinned))?.cpu.guest).toBe(8);
    const ref = { controllerRevisionRef: { name: "stored" } };
    expect(
      (await instancetype.find(vm({ instancetype: { name: "it" } }, { instancetypeRef: ref })))?.cpu.guest,
    ).toBe(8);
    // The ref's revision is for another name: the live object is read.
    expect(
      (await instancetype.find(vm({ instancetype: { name: "it2" } }, { instancetypeRef: ref })))?.cpu.guest,
    ).toBe(3);
  });

  it("refuses an unknown kind and passes NotFound through, as upstream", async () => {
    const { instancetype, preference } = setup();
    await expect(instancetype.find(vm({ instancetype: { name: "it", kind: "Pod" } }))).rejects.toThrow(
      "got unexpected kind in InstancetypeMatcher: Pod",
    );
    await expect(preference.findPreference(vm({ preference: { name: "p", kind: "Pod" } }))).rejects.toThrow(
      "got unexpected kind in PreferenceMatcher: Pod",
    );
    const missing = await instancetype.find(vm({ instancetype: { name: "nope" } })).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    const missingRevision = await instancetype
      .find(vm({ instancetype: { name: "it", revisionName: "nope" } }))
      .catch((e: unknown) => e);
    expect(isNotFound(missingRevision)).toBe(true);
  });

  it("refuses a revision that holds the other family", async () => {
    const { instancetype, preference } = setup();
    await expect(
      instancetype.find(vm({ instancetype: { name: "it", revisionName: "pref-stored" } })),
    ).rejects.toThrow("unexpected type in ControllerRevision: *v1beta1.VirtualMachinePreference");
    const pinned = await preference.findPreference(
      vm({ preference: { name: "pref", revisionName: "pref-stored" } }),
    );
    expect(pinned?.cpu?.preferredCPUTopology).toBe("spread");
  });

  it("finds preferences by kind", async () => {
    const { preference } = setup();
    expect(
      (await preference.findPreference(vm({ preference: { name: "pref" } })))?.cpu?.preferredCPUTopology,
    ).toBe("cores");
    const namespaced = vm({ preference: { name: "pref", kind: "VirtualMachinePreference" } });
    expect((await preference.findPreference(namespaced))?.cpu?.preferredCPUTopology).toBe("threads");
  });

  it("reads a cache first and the apiserver when it misses", async () => {
    const get = cachedGetter(
      async (_ns, name) => `api:${name}`,
      (_ns, name) => (name === "hit" ? "cache:hit" : undefined),
    );
    await expect(get("", "hit")).resolves.toBe("cache:hit");
    await expect(get("", "miss")).resolves.toBe("api:miss");
  });
});

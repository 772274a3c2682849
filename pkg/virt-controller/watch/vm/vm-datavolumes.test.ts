import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoredVM } from "../../../controller/resources.js";
import {
  startControllerEnv,
  syncOnce,
  Tables,
  vmFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";
import type { DataVolume } from "./vm-datavolumes.js";

// The VM controller's DataVolume templates against an in-memory apiserver, with CDI's API group served
// and (as on the local cluster) not served.

let env: ControllerEnv;
beforeEach(async () => {
  env = await startControllerEnv();
});
afterEach(() => env.stop());

const DataVolumes = "cdi.kubevirt.io/datavolumes";
const key = "default/testvm";
const vm = () => env.server.get<StoredVM>(Tables.vms, "default", "testvm");
const vmis = () => env.server.list(Tables.vmis);
const NotServed = "the server could not find the requested resource (post datavolumes.cdi.kubevirt.io)";

const template = {
  metadata: { name: "root", labels: { app: "x" } },
  spec: { storage: {}, source: { blank: {} } },
};

async function seedVM(
  spec: Partial<StoredVM["spec"]>,
  annotations: Record<string, string> = {},
): Promise<void> {
  const fixture = vmFixture("testvm", spec);
  fixture.metadata = {
    ...fixture.metadata,
    annotations: { ...fixture.metadata?.annotations, ...annotations },
  };
  const volumes = fixture.spec.template.spec!.volumes!;
  volumes.push({ name: "root", dataVolume: { name: "root" } });
  env.server.seed(Tables.vms, fixture);
  await env.server.settle();
}

const syncFailure = () =>
  syncOnce(env, "vm", key).then(
    () => undefined,
    (err: unknown) => err as Error,
  );

describe("dataVolumeTemplates without CDI", () => {
  beforeEach(() => env.server.unservedGroups.add("cdi.kubevirt.io"));

  it("fails the sync as upstream does: a FailedDataVolumeCreate event, a Failure condition, no VMI", async () => {
    await seedVM({ runStrategy: "Always", dataVolumeTemplates: [template] });
    const err = await syncFailure();
    expect(err?.message).toBe(
      `Error encountered while creating DataVolumes: failed to create DataVolume: ${NotServed}`,
    );
    expect(env.events).toEqual([
      `Warning FailedDataVolumeCreate Error creating DataVolume root: ${NotServed}`,
    ]);
    expect(vmis()).toEqual([]);
    expect(vm()?.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: "Failure",
        status: "True",
        reason: "FailedCreate",
        message: `Error encountered while creating DataVolumes: failed to create DataVolume: ${NotServed}`,
      }),
    );
  });

  it("fails a Halted VM too, unless creation is deferred to the start", async () => {
    await seedVM({ runStrategy: "Halted", dataVolumeTemplates: [template] });
    expect((await syncFailure())?.message).toContain(NotServed);
    env.stop();
    env = await startControllerEnv();
    env.server.unservedGroups.add("cdi.kubevirt.io");
    await seedVM(
      { runStrategy: "Halted", dataVolumeTemplates: [template] },
      { "kubevirt.io/immediate-data-volume-creation": "false" },
    );
    expect(await syncFailure()).toBeUndefined();
    expect(env.events).toEqual([]);
  });

  it("resolves a DataSource reference first, and says the lookup failed", async () => {
    const byRef = {
      metadata: { name: "root" },
      spec: { storage: {}, sourceRef: { kind: "DataSource", name: "fedora" } },
    };
    await seedVM({ runStrategy: "Always", dataVolumeTemplates: [byRef] });
    expect((await syncFailure())?.message).toBe(
      "Error encountered while creating DataVolumes: unable to create DataVolume manifest: " +
        "the server could not find the requested resource (get datasources.cdi.kubevirt.io fedora)",
    );
  });
});

describe("dataVolumeTemplates with CDI's API served", () => {
  it("creates each DataVolume owned by the VM and starts the VMI once they have succeeded", async () => {
    await seedVM({ runStrategy: "Always", dataVolumeTemplates: [template] });
    await syncOnce(env, "vm", key);
    const created = env.server.get<DataVolume>(DataVolumes, "default", "root");
    expect(created?.metadata).toMatchObject({
      labels: { app: "x", "kubevirt.io/created-by": vm()?.metadata?.uid },
      annotations: { "cdi.kubevirt.io/allowClaimAdoption": "true" },
      ownerReferences: [{ kind: "VirtualMachine", name: "testvm", controller: true }],
    });
    expect(created?.spec).toEqual(template.spec);
    expect(env.events).toEqual(["Normal SuccessfulDataVolumeCreate Created DataVolume root"]);
    expect(vmis()).toEqual([]);

    await syncOnce(env, "vm", key);
    expect(env.server.list(DataVolumes)).toHaveLength(1);
    expect(vmis()).toEqual([]);

    env.server.mutate<DataVolume>(
      DataVolumes,
      "default",
      "root",
      (dv) => (dv.status = { phase: "Succeeded" }),
    );
    await syncOnce(env, "vm", key);
    expect(vmis()).toHaveLength(1);
  });

  it("gives a clone source without a namespace the VM's, and warns while the source claim is missing", async () => {
    const clone = {
      metadata: { name: "root" },
      spec: { storage: {}, source: { pvc: { name: "golden", namespace: "" } } },
    };
    await seedVM({ runStrategy: "Always", dataVolumeTemplates: [clone] });
    await syncOnce(env, "vm", key);
    expect(env.server.get<DataVolume>(DataVolumes, "default", "root")?.spec.source).toEqual({
      pvc: { name: "golden", namespace: "default" },
    });
    expect(env.events[0]).toBe(
      "Warning SourcePVCNotAvailabe Source PVC golden not available: Target PVC root will remain unpopulated until source is created",
    );
  });
});

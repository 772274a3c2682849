import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OwnerReference } from "../../../controller/object.js";
import type { StoredVM, StoredVMPool } from "../../../controller/resources.js";
import { tableOf } from "../../../controller/testing/fake-apiserver.js";
import { dataVolumesGVR } from "../../../storage/types/cdi.js";
import { poolFixture, poolVMFixture, startPoolEnv, Tables, type PoolEnv } from "./testing.js";

// Upstream's statePreservation on scale-in: the PVCs and DataVolumes of a VM leaving the pool lose their
// owner reference to it, so they outlive it.

let env: PoolEnv;
beforeEach(async () => {
  env = await startPoolEnv();
});
afterEach(() => env.stop());

const PVCS = "/persistentvolumeclaims";
const DVS = tableOf(dataVolumesGVR);
const key = "default/pool";

const ownerOf = (vm: StoredVM): OwnerReference => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  name: vm.metadata?.name ?? "",
  uid: vm.metadata?.uid ?? "",
  controller: true,
  blockOwnerDeletion: true,
});
const otherOwner: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "keeper", uid: "keeper-uid" };
const refsOf = (table: string, name: string) =>
  env.server.get(table, "default", name)?.metadata?.ownerReferences ?? [];

/** A pool keeping its VM pool-0; pool-1 (root disk from a template, a data claim) leaves it. */
async function seedPool(strategy: StoredVMPool["spec"]["scaleInStrategy"], deleting = false) {
  // A VM someone deleted still counts toward the replicas until it is gone.
  const replicas = deleting ? 2 : 1;
  const pool = env.server.seed(Tables.pools, {
    ...poolFixture(replicas),
    // Its VMs' volumes differ from the template; no update should rewrite them here.
    spec: { ...poolFixture(replicas).spec, scaleInStrategy: strategy, updateStrategy: { unmanaged: {} } },
  });
  env.server.seed(Tables.vms, poolVMFixture(pool, 0));
  const vm = poolVMFixture(pool, 1);
  vm.spec.dataVolumeTemplates = [{ metadata: { name: "pool-1-root" }, spec: { storage: {} } }];
  vm.spec.template.spec!.volumes = [
    { name: "root", dataVolume: { name: "pool-1-root" } },
    { name: "data", persistentVolumeClaim: { claimName: "data-1" } },
    { name: "gone", persistentVolumeClaim: { claimName: "missing" } },
  ];
  if (deleting) vm.metadata = { ...vm.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
  const stored = env.server.seed(Tables.vms, vm);
  const claim = (name: string, ownerReferences: OwnerReference[]) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, namespace: "default", ownerReferences },
    spec: {},
  });
  // The root claim belongs to its DataVolume, which the VM controls; the data claim is the VM's.
  env.server.seed(PVCS, claim("pool-1-root", [otherOwner]));
  env.server.seed(PVCS, claim("data-1", [otherOwner, ownerOf(stored)]));
  env.server.seed(DVS, {
    apiVersion: "cdi.kubevirt.io/v1beta1",
    kind: "DataVolume",
    metadata: { name: "pool-1-root", namespace: "default", ownerReferences: [ownerOf(stored)] },
    spec: {},
  });
  await env.server.settle();
  return stored;
}

async function sync() {
  try {
    await env.controller.execute(key);
  } finally {
    await env.server.settle();
  }
}

describe("state preservation on scale-in", () => {
  it.each(["Offline", "Online"])(
    "with a proactive %s one, frees the claims and DataVolumes the deleted VM controls",
    async (statePreservation) => {
      await seedPool({
        proactive: { statePreservation, selectionPolicy: { sortPolicy: "DescendingOrder" } },
      });
      await sync();
      expect(env.server.get(Tables.vms, "default", "pool-1")).toBeUndefined();
      expect(refsOf(PVCS, "data-1")).toEqual([otherOwner]);
      expect(refsOf(DVS, "pool-1-root")).toEqual([]);
      expect(refsOf(PVCS, "pool-1-root")).toEqual([otherOwner]);
    },
  );

  it("leaves them owned by the VM by default (Disabled)", async () => {
    const vm = await seedPool({ proactive: { selectionPolicy: { sortPolicy: "DescendingOrder" } } });
    await sync();
    expect(refsOf(PVCS, "data-1")).toEqual([otherOwner, ownerOf(vm)]);
    expect(refsOf(DVS, "pool-1-root")).toEqual([ownerOf(vm)]);
  });

  it("with an opportunistic one, frees them when a VM someone deleted leaves the pool", async () => {
    await seedPool({ opportunistic: { statePreservation: "Offline" } }, true);
    await sync();
    expect(refsOf(PVCS, "data-1")).toEqual([otherOwner]);
    expect(refsOf(DVS, "pool-1-root")).toEqual([]);
    expect(env.server.get<StoredVM>(Tables.vms, "default", "pool-1")).toBeUndefined();
  });

  it("a failed release keeps the finalizer and is told of in upstream's words", async () => {
    await seedPool({
      proactive: { statePreservation: "Offline", selectionPolicy: { sortPolicy: "DescendingOrder" } },
    });
    env.transport.failNth("PATCH", "persistentvolumeclaims", 0);
    await expect(sync()).rejects.toThrow("failed to remove owner reference from PVC data-1: failure");
    expect(env.events).toEqual(
      expect.arrayContaining([
        "Warning FailedUpdate Error removing PVC owner references for VM default/pool-1: failed to remove owner reference from PVC data-1: failure",
        "Warning FailedUpdate Error preserving state of VM default/pool-1: failed to remove owner reference from PVC data-1: failure",
      ]),
    );
    expect(env.server.get<StoredVM>(Tables.vms, "default", "pool-1")?.metadata?.finalizers).toContain(
      "pool.kubevirt.io/finalizer",
    );
  });
});

import { describe, expect, it } from "vitest";
import type { VirtualMachinePoolSpec } from "../../../api/generated/v1beta1.js";
import type { StoredVMPool } from "../../../controller/resources.js";
import {
  isOutdatedVM,
  newPoolRevision,
  revisionSpec,
  vmiUpdateType,
  type RevisionLookup,
} from "./pool-revisions.js";
import { poolFixture, poolVMFixture, vmiFixture } from "./testing.js";

const base = () => {
  const pool = poolFixture(1);
  pool.metadata = { ...pool.metadata, uid: "pool-uid", generation: 1 };
  return pool;
};
const changed = (change: (pool: StoredVMPool) => void): StoredVMPool => {
  const pool = base();
  pool.metadata = { ...pool.metadata, generation: 2 };
  change(pool);
  return pool;
};
const lookupOf = (...pools: StoredVMPool[]): RevisionLookup => {
  const specs = new Map<string, VirtualMachinePoolSpec>(
    pools.map((pool) => [newPoolRevision(pool).metadata?.name ?? "", revisionSpec(newPoolRevision(pool))]),
  );
  return (name) => specs.get(name);
};

describe("newPoolRevision", () => {
  it("holds the spec, named after the pool and its generation, owned by the pool", () => {
    const pool = base();
    expect(newPoolRevision(pool)).toEqual({
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name: "pool-1",
        namespace: "default",
        ownerReferences: [
          {
            apiVersion: "pool.kubevirt.io/v1beta1",
            kind: "VirtualMachinePool",
            name: "pool",
            uid: "pool-uid",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: pool.spec,
      revision: 1,
    });
  });

  it("refuses data that is no pool spec", () => {
    expect(() => revisionSpec({ metadata: { name: "pool-1" }, data: { replicas: "many" } })).toThrow(
      /ControllerRevision pool-1 holds no pool spec/,
    );
  });
});

describe("isOutdatedVM", () => {
  it("is outdated without a revision label, a known revision, or with another VM template", () => {
    const pool = base();
    const vm = poolVMFixture(pool, 0);
    expect(isOutdatedVM(pool, vm, lookupOf(pool))).toBe(false);
    expect(isOutdatedVM(pool, vm, lookupOf())).toBe(true);
    const unlabelled = poolVMFixture(pool, 0);
    delete unlabelled.metadata?.labels?.["kubevirt.io/vm-pool-revision-name"];
    expect(isOutdatedVM(pool, unlabelled, lookupOf(pool))).toBe(true);
    const newer = changed((p) => (p.spec.virtualMachineTemplate.metadata!.labels!.extra = "x"));
    expect(isOutdatedVM(newer, vm, lookupOf(pool, newer))).toBe(true);
    // A change outside the VM template (the replica count) keeps the VM current.
    const scaled = changed((p) => (p.spec.replicas = 3));
    expect(isOutdatedVM(scaled, vm, lookupOf(pool, scaled))).toBe(false);
  });
});

describe("vmiUpdateType", () => {
  const old = base();
  const vmOf = (pool: StoredVMPool) => poolVMFixture(pool, 0, newPoolRevision(pool));

  it.each<[string, StoredVMPool, string | undefined, RevisionLookup | undefined, string]>([
    ["same revision", old, "pool-1", undefined, "no-update"],
    ["no revision on the VMI", old, undefined, undefined, "restart"],
    [
      "the VMI's revision is gone",
      changed(() => undefined),
      "pool-1",
      lookupOf(changed(() => undefined)),
      "restart",
    ],
    ["a VM revision not cached yet", changed(() => undefined), "pool-1", lookupOf(old), "no-update"],
    [
      "the same VMI template under another name",
      changed((p) => (p.spec.replicas = 5)),
      "pool-1",
      undefined,
      "label-patch",
    ],
    [
      "another VMI template",
      changed((p) => (p.spec.virtualMachineTemplate.spec!.template.metadata!.labels!.x = "y")),
      "pool-1",
      undefined,
      "restart",
    ],
    [
      "other DataVolume templates",
      changed(
        (p) =>
          (p.spec.virtualMachineTemplate.spec!.dataVolumeTemplates = [{ metadata: { name: "d" }, spec: {} }]),
      ),
      "pool-1",
      undefined,
      "vm-delete",
    ],
  ])("%s: %s", (_name, current, vmiRevision, lookup, expected) => {
    const vm = vmOf(current);
    const vmi = vmiFixture(vm, vmiRevision);
    expect(vmiUpdateType(vm, vmi, lookup ?? lookupOf(old, current))).toBe(expected);
  });

  it("leaves a VM without a revision label to the VM update", () => {
    const vm = vmOf(old);
    delete vm.metadata?.labels?.["kubevirt.io/vm-pool-revision-name"];
    expect(vmiUpdateType(vm, vmiFixture(vm, undefined), lookupOf(old))).toBe("no-update");
  });
});

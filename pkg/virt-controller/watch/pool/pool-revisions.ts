// The pool's ControllerRevisions (upstream's ensureControllerRevision, isOutdatedVM and isOutdatedVMI):
// the pool spec at a generation, named `<pool>-<generation>` and owned by the pool. A VM records the
// revision it was made from in a label, and so does the VMI it starts; comparing the two revisions tells
// whether the VM must be rewritten and whether its running VMI must be restarted, relabelled, or the
// whole VM replaced because its DataVolumes changed.
import type { VirtualMachinePoolSpec } from "../../../api/generated/v1beta1.js";
import { VirtualMachinePoolSpecSchema } from "../../../api/generated/v1beta1.js";
import { parse } from "../../../api/parse.js";
import { semanticEqual } from "../../../apimachinery/equality.js";
import type { ResourceClient } from "../../../controller/client.js";
import { ControllerUIDIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { splitKey, type KubeObject } from "../../../controller/object.js";
import type { StoredVM, StoredVMI, StoredVMPool } from "../../../controller/resources.js";
import { VirtualMachinePoolRevisionName } from "../../../util/constants.js";
import type { PoolExpectations } from "./pool-expectations.js";
import { poolOwnerRef } from "./pool-vms.js";

/** An apps/v1 ControllerRevision as the informer holds it; a pool's carries its spec as data. */
export interface PoolRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

export const revisionName = (pool: StoredVMPool): string =>
  `${pool.metadata?.name ?? ""}-${pool.metadata?.generation ?? 0}`;

export function newPoolRevision(pool: StoredVMPool): PoolRevision {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: revisionName(pool),
      namespace: pool.metadata?.namespace,
      ownerReferences: [poolOwnerRef(pool)],
    },
    data: structuredClone(pool.spec),
    revision: pool.metadata?.generation ?? 0,
  };
}

/** getControllerRevision: the pool spec a revision holds; throws when its data is no pool spec. */
export function revisionSpec(revision: PoolRevision): VirtualMachinePoolSpec {
  const parsed = parse(VirtualMachinePoolSpecSchema, revision.data);
  if (!parsed.ok) {
    throw new Error(
      `ControllerRevision ${revision.metadata?.name ?? ""} holds no pool spec: ${parsed.errors.join(", ")}`,
    );
  }
  return parsed.value;
}

/** Finds a revision's spec by name in the pool's namespace; undefined when there is no such revision. */
export type RevisionLookup = (name: string) => VirtualMachinePoolSpec | undefined;

export const revisionLabel = (obj: KubeObject): string | undefined =>
  obj.metadata?.labels?.[VirtualMachinePoolRevisionName];

/** isOutdatedVM: the VM was not made from a revision whose VM template is the pool's current one. */
export function isOutdatedVM(pool: StoredVMPool, vm: StoredVM, lookup: RevisionLookup): boolean {
  const name = revisionLabel(vm);
  if (name === undefined) return true;
  const spec = lookup(name);
  if (!spec) return true;
  return !semanticEqual(spec.virtualMachineTemplate, pool.spec.virtualMachineTemplate);
}

export type VMIUpdate =
  /** Revisions agree: nothing to do. */
  | "no-update"
  /** The VMI template changed: the VMI is deleted, and the VM starts it anew. */
  | "restart"
  /** Only the revision's name differs: the VMI's label is patched. */
  | "label-patch"
  /** The DataVolume templates changed: the whole VM goes and is made anew. */
  | "vm-delete";

/**
 * isOutdatedVMI: what bringing the VMI to the VM's revision takes. A VM without a revision label is
 * left to the opportunistic update; a VMI without one, or whose revision is gone, is restarted; a VM
 * revision not in the cache yet waits for it.
 */
export function vmiUpdateType(vm: StoredVM, vmi: StoredVMI, lookup: RevisionLookup): VMIUpdate {
  const vmRevision = revisionLabel(vm);
  if (vmRevision === undefined) return "no-update";
  const vmiRevision = revisionLabel(vmi);
  if (vmiRevision === undefined) return "restart";
  if (vmRevision === vmiRevision) return "no-update";
  const expected = lookup(vmRevision);
  if (!expected) return "no-update";
  const current = lookup(vmiRevision);
  if (!current) return "restart";
  const expectedVM = expected.virtualMachineTemplate.spec;
  const currentVM = current.virtualMachineTemplate.spec;
  if (!semanticEqual(currentVM?.dataVolumeTemplates, expectedVM?.dataVolumeTemplates)) return "vm-delete";
  if (!semanticEqual(currentVM?.template, expectedVM?.template)) return "restart";
  return "label-patch";
}

/** Pool revisions as the cache shows them, and the writes that create and prune them. */
export class PoolRevisions {
  constructor(
    private readonly cache: Pick<Informer<PoolRevision>, "getByName" | "indexKeys">,
    private readonly client: ResourceClient<PoolRevision>,
    private readonly expectations: Pick<PoolExpectations, "expectCreation" | "creationObserved">,
  ) {}

  lookup(namespace: string): RevisionLookup {
    return (name) => {
      const revision = this.cache.getByName(namespace, name);
      return revision && revisionSpec(revision);
    };
  }

  /** ensureControllerRevision: the current generation's revision, created when the cache lacks it. */
  async ensure(key: string, pool: StoredVMPool): Promise<string> {
    const name = revisionName(pool);
    if (this.cache.getByName(pool.metadata?.namespace ?? "", name)) return name;
    this.expectations.expectCreation(key);
    try {
      await this.client.create(newPoolRevision(pool));
    } catch (err) {
      this.expectations.creationObserved(key);
      throw err;
    }
    return name;
  }

  /** pruneUnusedRevisions: deletes the pool's revisions that neither a VM nor its VMI is labelled with. */
  async prune(pool: StoredVMPool, vms: readonly StoredVM[], vmiOf: (vm: StoredVM) => StoredVMI | undefined) {
    const unused = new Set(
      this.cache.indexKeys(ControllerUIDIndex, pool.metadata?.uid ?? "").map((key) => splitKey(key).name),
    );
    for (const vm of vms) {
      for (const obj of [vm, vmiOf(vm)]) {
        const name = obj && revisionLabel(obj);
        if (name !== undefined) unused.delete(name);
      }
    }
    for (const name of unused) await this.client.delete(pool.metadata?.namespace ?? "", name);
  }
}

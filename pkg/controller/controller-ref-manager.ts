// Upstream's controller ref manager (pkg/controller/controller_ref_manager.go, from kube-controller-manager):
// a controller claims the objects its selector matches. Orphans that match are adopted (an ownerReference
// with controller: true is patched in, guarded by the object's uid), owned objects that stopped matching
// are released (their ownerReferences emptied), and objects another controller owns are left alone. A
// controller being deleted neither adopts nor releases; before its first adoption in a sync it rechecks,
// with a live read, that it is not being deleted and is still the same object. The pool controller only
// releases its VMs: it never adopts (upstream's ReleaseDetachedVirtualMachines).
import { VirtualMachinePoolControllerFinalizer } from "../util/constants.js";
import { isInvalid, isNotFound } from "./api-error.js";
import type { KubeClient } from "./client.js";
import type { Selector } from "./label-selector.js";
import { controllerRefOf, isBeingDeleted, type KubeObject } from "./object.js";
import { virtualMachineInstancesGVR, virtualMachinesGVR } from "./resources.js";

export interface ControllerKind {
  apiVersion: string;
  kind: string;
}

/** VirtualMachineControlInterface: the merge patches the manager sends. */
export interface VirtualMachineControl {
  patchVirtualMachineInstance(namespace: string, name: string, patch: unknown): Promise<unknown>;
  patchVirtualMachine(namespace: string, name: string, patch: unknown): Promise<unknown>;
}

/** RealVirtualMachineControl: merge patches through the client. */
export function realVirtualMachineControl(client: KubeClient): VirtualMachineControl {
  const vmis = client.resource(virtualMachineInstancesGVR);
  const vms = client.resource(virtualMachinesGVR);
  return {
    patchVirtualMachineInstance: (namespace, name, patch) => vmis.patch(namespace, name, "merge", patch),
    patchVirtualMachine: (namespace, name, patch) => vms.patch(namespace, name, "merge", patch),
  };
}

/** utilerrors.NewAggregate: one error as itself, several as `[a, b]`; none is no error. */
export function aggregateErrors(errors: readonly unknown[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1 && errors[0] instanceof Error) return errors[0];
  const messages = [...new Set(errors.map((err) => (err instanceof Error ? err.message : String(err))))];
  return new Error(messages.length === 1 ? (messages[0] ?? "") : `[${messages.join(", ")}]`);
}

/** RecheckDeletionTimestamp: a canAdopt check failing once the live object is being deleted. */
export function recheckDeletionTimestamp(getObject: () => Promise<KubeObject>): () => Promise<void> {
  return async () => {
    let obj: KubeObject;
    try {
      obj = await getObject();
    } catch (err) {
      throw new Error(`can't recheck DeletionTimestamp: ${err instanceof Error ? err.message : String(err)}`);
    }
    const { namespace, name, deletionTimestamp } = obj.metadata ?? {};
    if (isBeingDeleted(obj)) {
      throw new Error(`${namespace ?? ""}/${name ?? ""} has just been deleted at ${deletionTimestamp ?? ""}`);
    }
  };
}

type Claim = "owned" | "notOwned";

export class VirtualMachineControllerRefManager {
  private canAdoptResult: Promise<void> | undefined;

  constructor(
    private readonly control: VirtualMachineControl,
    private readonly controller: KubeObject,
    private readonly selector: Selector,
    private readonly controllerKind: ControllerKind,
    private readonly canAdoptFunc?: () => Promise<void>,
  ) {}

  /** Runs the expensive check at most once per manager (one sync). */
  canAdopt(): Promise<void> {
    this.canAdoptResult ??= this.canAdoptFunc ? this.canAdoptFunc() : Promise.resolve();
    return this.canAdoptResult;
  }

  private controllerUID(): string {
    return this.controller.metadata?.uid ?? "";
  }

  private isOwned(obj: KubeObject): boolean {
    const ref = controllerRefOf(obj);
    return ref !== undefined && ref.uid === this.controllerUID();
  }

  private isOwnedByOther(obj: KubeObject): boolean {
    const ref = controllerRefOf(obj);
    return ref !== undefined && ref.uid !== this.controllerUID();
  }

  /** ClaimObject: whether the controller owns obj once reconciled; throws when an adoption or release failed. */
  private async claimObject<T extends KubeObject>(
    obj: T,
    match: (obj: T) => boolean,
    adopt: (obj: T) => Promise<void>,
    release: (obj: T) => Promise<void>,
  ): Promise<Claim> {
    const owned = this.isOwned(obj);
    const matched = match(obj);
    if (owned && matched) return "owned";
    if (owned) {
      if (isBeingDeleted(this.controller)) return "notOwned";
      try {
        await release(obj);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return "notOwned";
    }
    if (this.isOwnedByOther(obj) || !matched) return "notOwned";
    if (isBeingDeleted(this.controller) || isBeingDeleted(obj)) return "notOwned";
    try {
      await adopt(obj);
    } catch (err) {
      if (isNotFound(err)) return "notOwned";
      throw err;
    }
    return "owned";
  }

  /**
   * ClaimVirtualMachineInstances: the VMIs the controller owns after adopting matching orphans and
   * releasing owned VMIs that no longer match; `errors` lists the adoptions and releases that failed.
   */
  async claimVirtualMachineInstances<T extends KubeObject>(
    vmis: readonly T[],
    ...filters: Array<(vmi: T) => boolean>
  ): Promise<{ claimed: T[]; errors: unknown[] }> {
    const match = (vmi: T) =>
      this.selector.matches(vmi.metadata?.labels) && filters.every((filter) => filter(vmi));
    const claimed: T[] = [];
    const errors: unknown[] = [];
    for (const vmi of vmis) {
      try {
        const claim = await this.claimObject(
          vmi,
          match,
          (obj) => this.adoptVirtualMachineInstance(obj),
          (obj) => this.releaseVirtualMachineInstance(obj),
        );
        if (claim === "owned") claimed.push(vmi);
      } catch (err) {
        errors.push(err);
      }
    }
    return { claimed, errors };
  }

  async adoptVirtualMachineInstance(vmi: KubeObject): Promise<void> {
    const { namespace = "", name = "", uid = "" } = vmi.metadata ?? {};
    try {
      await this.canAdopt();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`can't adopt VirtualMachineInstance ${namespace}/${name} (${uid}): ${reason}`);
    }
    // The uid makes the patch fail on a VMI that was replaced under the same name.
    const patch = {
      metadata: {
        ownerReferences: [
          {
            apiVersion: this.controllerKind.apiVersion,
            kind: this.controllerKind.kind,
            name: this.controller.metadata?.name ?? "",
            uid: this.controllerUID(),
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        uid,
      },
    };
    await this.control.patchVirtualMachineInstance(namespace, name, patch);
  }

  async releaseVirtualMachineInstance(vmi: KubeObject): Promise<void> {
    const { namespace = "", name = "" } = vmi.metadata ?? {};
    await ignoringGone(
      this.control.patchVirtualMachineInstance(namespace, name, { metadata: { ownerReferences: [] } }),
    );
  }

  /**
   * ReleaseDetachedVirtualMachines: the VMs the controller still owns once those that stopped matching are
   * released; orphans are never adopted. `errors` lists the releases that failed.
   */
  async releaseDetachedVirtualMachines<T extends KubeObject>(
    vms: readonly T[],
    ...filters: Array<(vm: T) => boolean>
  ): Promise<{ owned: T[]; errors: unknown[] }> {
    const match = (vm: T) =>
      this.selector.matches(vm.metadata?.labels) && filters.every((filter) => filter(vm));
    const owned: T[] = [];
    const errors: unknown[] = [];
    for (const vm of vms) {
      if (!this.isOwned(vm)) continue;
      if (match(vm)) {
        owned.push(vm);
        continue;
      }
      if (isBeingDeleted(this.controller)) continue;
      try {
        await this.releaseVirtualMachine(vm);
      } catch (err) {
        if (!isNotFound(err)) errors.push(err);
      }
    }
    return { owned, errors };
  }

  /** Drops the controller reference and, so that nothing waits on a pool that let go, the pool finalizer. */
  async releaseVirtualMachine(vm: KubeObject): Promise<void> {
    const { namespace = "", name = "", finalizers = [] } = vm.metadata ?? {};
    const kept = finalizers.filter((finalizer) => finalizer !== VirtualMachinePoolControllerFinalizer);
    await ignoringGone(
      this.control.patchVirtualMachine(namespace, name, {
        metadata: { ownerReferences: [], finalizers: kept },
      }),
    );
  }
}

/** Gone, or no longer patchable (being deleted): there is nothing left to release. */
async function ignoringGone(patch: Promise<unknown>): Promise<void> {
  try {
    await patch;
  } catch (err) {
    if (isNotFound(err) || isInvalid(err)) return;
    throw err;
  }
}

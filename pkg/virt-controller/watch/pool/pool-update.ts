// Rolling a changed template out to a pool's VMs (upstream's update, opportunisticUpdate, proactiveUpdate
// and handleResourceUpdate). Every VM not made from the current template is rewritten from it (keeping
// its firmware identity). Unless the update strategy is opportunistic, running VMIs are then brought to
// their VM's revision: restarted (VMI deleted, the VM starts it anew), relabelled when only the revision
// name differs, or the whole VM replaced when its DataVolume templates changed, never leaving more than
// maxUnavailable VMIs unavailable at once. An unmanaged strategy leaves VMs and VMIs alone.
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { hasConditionWithStatus } from "../../../controller/conditions.js";
import type { Informer } from "../../../controller/informer.js";
import { isBeingDeleted, keyOf } from "../../../controller/object.js";
import type { StoredVM, StoredVMI, StoredVMPool } from "../../../controller/resources.js";
import { SyncError } from "../../../controller/sync-error.js";
import { VirtualMachinePoolRevisionName } from "../../../util/constants.js";
import { errorMessage } from "../../../util/error-message.js";
import { FailedUpdateVirtualMachineReason, SuccessfulDeleteVirtualMachineReason } from "../common/events.js";
import {
  filterVMsBySelectors,
  isOpportunisticUpdate,
  isUnmanagedUpdate,
  maxUnavailable,
  sortVMs,
  updateSelectionPolicy,
  type RandomInt,
} from "./pool-policy.js";
import {
  isOutdatedVM,
  revisionLabel,
  vmiUpdateType,
  type PoolRevisions,
  type RevisionLookup,
  type VMIUpdate,
} from "./pool-revisions.js";
import { filterNotReadyVMs, indexFromName, updatedPoolVM } from "./pool-vms.js";
import { vmName, type PoolWrites } from "./pool-writes.js";

export const FailedUpdateReason = "FailedUpdate";
export const SuccessfulUpdateVirtualMachineReason = "SuccessfulUpdate";

/** How long a proactive update that reached maxUnavailable waits before looking again. */
export const UpdateRetryDelayMs = 3000;

export interface UpdateResult {
  error?: SyncError;
  /** No VM was outdated: unused revisions may be pruned. */
  stable: boolean;
}

/** A VMI that counts as available: Running, Ready and not being deleted. */
function isVMIReady(vmi: StoredVMI): boolean {
  return (
    !isBeingDeleted(vmi) &&
    vmi.status?.phase === "Running" &&
    hasConditionWithStatus(vmi.status, "Ready", "True")
  );
}

const failed = (what: string, err: unknown): SyncError =>
  new SyncError(`${what}: ${errorMessage(err)}`, FailedUpdateReason);

export class PoolUpdater {
  constructor(
    private readonly writes: PoolWrites,
    private readonly vmiCache: Pick<Informer<StoredVMI>, "get">,
    private readonly revisions: PoolRevisions,
    /** Looks at the pool again after a delay (the pool's queue). */
    private readonly requeueAfter: (key: string, delayMs: number) => void,
    private readonly random: RandomInt,
  ) {}

  private vmiOf(vm: StoredVM): StoredVMI | undefined {
    return this.vmiCache.get(keyOf(vm));
  }

  async update(key: string, pool: StoredVMPool, vms: readonly StoredVM[]): Promise<UpdateResult> {
    if (isUnmanagedUpdate(pool)) return { stable: true };
    const lookup = this.revisions.lookup(pool.metadata?.namespace ?? "");
    let selected = [...vms];
    const selectors = updateSelectionPolicy(pool)?.selectors;
    if (selectors) {
      try {
        selected = filterVMsBySelectors(vms, selectors);
      } catch (err) {
        return { error: failed("failed to filter VMs based on ordered policies", err), stable: false };
      }
    }
    const outdated: StoredVM[] = [];
    const current: StoredVM[] = [];
    try {
      for (const vm of selected) (isOutdatedVM(pool, vm, lookup) ? outdated : current).push(vm);
    } catch (err) {
      return { error: failed("error while detecting outdated VMs", err), stable: false };
    }
    try {
      await this.opportunisticUpdate(key, pool, outdated);
    } catch (err) {
      return { error: failed("error during VM update", err), stable: false };
    }
    if (!isOpportunisticUpdate(pool)) {
      try {
        await this.proactiveUpdate(key, pool, current, lookup);
      } catch (err) {
        return { error: failed("error during VMI update", err), stable: false };
      }
    }
    return { stable: outdated.length === 0 };
  }

  /** Rewrites each outdated VM from the current template and revision. */
  private async opportunisticUpdate(key: string, pool: StoredVMPool, outdated: readonly StoredVM[]) {
    if (outdated.length === 0) return;
    const revisionName = await this.revisions.ensure(key, pool);
    const errors = await Promise.all(
      outdated.map(async (vm) => {
        const name = vm.metadata?.name ?? "";
        const index = indexFromName(name);
        if (index === undefined) return new Error(`strconv.Atoi: parsing "${name}": invalid syntax`);
        try {
          await this.writes.vms.update(updatedPoolVM(pool, vm, index, revisionName));
        } catch (err) {
          this.writes.reporter.event(
            pool,
            "Warning",
            FailedUpdateVirtualMachineReason,
            `Error updating virtual machine ${vmName(vm)}: ${errorMessage(err)}`,
          );
          return err instanceof Error ? err : new Error(String(err));
        }
        this.writes.reporter.event(
          pool,
          "Normal",
          SuccessfulUpdateVirtualMachineReason,
          `Updated VM ${vmName(vm)}`,
        );
        return undefined;
      }),
    );
    const error = errors.find((err) => err !== undefined);
    if (error) throw error;
  }

  /** Brings running VMIs to their VM's revision, within maxUnavailable. */
  private async proactiveUpdate(
    key: string,
    pool: StoredVMPool,
    vms: readonly StoredVM[],
    lookup: RevisionLookup,
  ) {
    // Not-ready VMIs first, so that a change that left them broken is rolled over before anything else.
    for (const vm of filterNotReadyVMs(vms)) {
      const vmi = this.vmiOf(vm);
      if (!vmi || isBeingDeleted(vmi)) continue;
      await this.bringToRevision(pool, vm, vmi, vmiUpdateType(vm, vmi, lookup));
    }
    const allowed = maxUnavailable(pool);
    const unavailable = vms.filter((vm) => {
      const vmi = this.vmiOf(vm);
      return !vmi || !isVMIReady(vmi);
    }).length;
    const ordered = pool.spec.updateStrategy?.proactive
      ? sortVMs(vms, updateSelectionPolicy(pool)?.sortPolicy, this.random)
      : vms;
    let updatable = allowed - unavailable;
    for (const vm of ordered) {
      if (updatable <= 0) {
        this.writes.reporter.info(pool, `Delaying proactive update: max unavailable (${allowed}) reached`);
        this.requeueAfter(key, UpdateRetryDelayMs);
        return;
      }
      const vmi = this.vmiOf(vm);
      if (!vmi) continue;
      const update = vmiUpdateType(vm, vmi, lookup);
      if (update === "no-update") continue;
      await this.bringToRevision(pool, vm, vmi, update);
      updatable--;
    }
  }

  /** handleResourceUpdate; a VMI already at its revision is left alone (upstream still tells of it). */
  private async bringToRevision(pool: StoredVMPool, vm: StoredVM, vmi: StoredVMI, update: VMIUpdate) {
    if (update === "no-update") return;
    const namespace = vm.metadata?.namespace ?? "";
    if (update === "label-patch") {
      const revision = revisionLabel(vm);
      if (revision === undefined) return;
      const labels = { ...vmi.metadata?.labels, [VirtualMachinePoolRevisionName]: revision };
      const patch = new PatchSet().testAndSet("/metadata/labels", vmi.metadata?.labels, labels);
      try {
        await this.writes.vmis.patch(namespace, vmi.metadata?.name ?? "", "json", patch.toJSON());
      } catch (err) {
        throw new Error(`patching of vmi labels with new pool revision name: ${errorMessage(err)}`);
      }
      this.writes.reporter.info(pool, `Proactive update of VM ${vmName(vm)} in pool via label patch`);
    } else {
      try {
        if (update === "restart") {
          await this.writes.vmis.delete(namespace, vmi.metadata?.name ?? "");
          this.writes.reporter.info(pool, `Proactive update of VM ${vmName(vm)} by deleting outdated VMI`);
        } else {
          await this.writes.vms.delete(namespace, vm.metadata?.name ?? "", {
            propagationPolicy: "Foreground",
          });
          this.writes.reporter.info(
            pool,
            `Proactive update of VM ${vmName(vm)} by deleting VM due to data volume changes`,
          );
        }
      } catch (err) {
        this.writes.reporter.event(
          pool,
          "Warning",
          FailedUpdateVirtualMachineReason,
          `Error updating resource ${vmName(vm)}: ${errorMessage(err)}`,
        );
        throw err;
      }
    }
    this.writes.reporter.event(
      pool,
      "Normal",
      SuccessfulDeleteVirtualMachineReason,
      `Successfully updated resource ${vmName(vm)}`,
    );
  }
}

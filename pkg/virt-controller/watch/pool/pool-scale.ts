// Scaling a pool (upstream's scale, scaleOut, proactiveScaleIn, scaleIn and opportunisticScaleIn): at
// most burstReplicas VMs created or deleted per sync, under expectations. New VMs take the lowest free
// indexes; scale-in picks VMs by the proactive selection policy (Random by default) and lets each go of
// the pool finalizer. When the count is right, VMs someone else is deleting are let go of the finalizer
// too, so that they can finally go and be replaced.
import type { Informer } from "../../../controller/informer.js";
import { keyOf } from "../../../controller/object.js";
import type { StoredVM, StoredVMPool } from "../../../controller/resources.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import {
  FailedCreateVirtualMachineReason,
  FailedDeleteVirtualMachineReason,
  FailedUpdateVirtualMachineReason,
  SuccessfulCreateVirtualMachineReason,
  SuccessfulDeleteVirtualMachineReason,
} from "../common/events.js";
import type { PoolExpectations } from "./pool-expectations.js";
import {
  filterVMsBySelectors,
  isOpportunisticScaleIn,
  isUnmanagedScaleIn,
  scaleInSelectionPolicy,
  sortVMs,
  type RandomInt,
} from "./pool-policy.js";
import type { PoolRevisions } from "./pool-revisions.js";
import {
  calcDiff,
  calculateNewVMNames,
  filterDeletingVMs,
  filterRunningVMs,
  indexFromName,
  newPoolVM,
} from "./pool-vms.js";
import { vmName, type PoolWrites } from "./pool-writes.js";
import { preservesStateOnOpportunisticScaleIn, preservesStateOnProactiveScaleIn } from "./pool-state.js";

export const FailedScaleOutReason = "FailedScaleOut";
export const FailedScaleInReason = "FailedScaleIn";

export interface ScaleResult {
  error?: SyncError;
  /** The pool has its count: updates and pruning may follow in the same sync. */
  stable: boolean;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
const firstError = (errors: ReadonlyArray<Error | undefined>): Error | undefined =>
  errors.find((err) => err !== undefined);

export class PoolScaler {
  constructor(
    private readonly writes: PoolWrites,
    private readonly expectations: PoolExpectations,
    private readonly vmCache: Pick<Informer<StoredVM>, "getByName">,
    private readonly revisions: PoolRevisions,
    private readonly burstReplicas: number,
    private readonly random: RandomInt,
  ) {}

  async scale(key: string, pool: StoredVMPool, vms: readonly StoredVM[]): Promise<ScaleResult> {
    const diff = calcDiff(pool, vms);
    if (diff === 0) {
      const error = await this.releaseDeletingVMs(pool, vms);
      if (!error) return { stable: true };
      return {
        error: new SyncError(`error during opportunistic scale in: ${error.message}`, FailedScaleInReason),
        stable: false,
      };
    }
    const count = Math.min(Math.abs(diff), this.burstReplicas);
    try {
      if (diff < 0) await this.scaleOut(key, pool, count);
      else await this.proactiveScaleIn(key, pool, vms, count);
    } catch (err) {
      const error =
        diff < 0
          ? new SyncError(`error during scale out: ${errorMessage(err)}`, FailedScaleOutReason)
          : new SyncError(`error during scale in: ${errorMessage(err)}`, FailedScaleInReason);
      return { error, stable: false };
    }
    return { stable: false };
  }

  private async scaleOut(key: string, pool: StoredVMPool, count: number): Promise<void> {
    const namespace = pool.metadata?.namespace ?? "";
    const names = calculateNewVMNames(count, pool.metadata?.name ?? "", (name) =>
      Boolean(this.vmCache.getByName(namespace, name)),
    );
    const revisionName = await this.revisions.ensure(key, pool);
    this.writes.reporter.info(pool, `Adding ${names.length} VMs to pool`);
    this.expectations.addExpectedCreations(key, names.length);
    const errors = await Promise.all(
      names.map(async (name) => {
        try {
          const created = await this.writes.vms.create(
            newPoolVM(pool, name, indexFromName(name) ?? 0, revisionName),
          );
          this.writes.reporter.event(
            pool,
            "Normal",
            SuccessfulCreateVirtualMachineReason,
            `Created VM ${vmName(created)}`,
          );
          return undefined;
        } catch (err) {
          // A creation the server refused will never be observed.
          this.expectations.creationObserved(key);
          return asError(err);
        }
      }),
    );
    const error = firstError(errors);
    if (!error) return;
    this.writes.reporter.event(
      pool,
      "Warning",
      FailedCreateVirtualMachineReason,
      `Error creating VM: ${error.message}`,
    );
    throw error;
  }

  /** VMs already being deleted count toward the ones to remove. */
  private async proactiveScaleIn(key: string, pool: StoredVMPool, vms: readonly StoredVM[], count: number) {
    if (isUnmanagedScaleIn(pool) || isOpportunisticScaleIn(pool)) return;
    const running = filterRunningVMs(vms);
    await this.scaleIn(key, pool, running, count - (vms.length - running.length));
  }

  /** Deletes `count` of `vms` in the selection policy's order; also how autohealing replaces failing VMs. */
  async scaleIn(key: string, pool: StoredVMPool, vms: readonly StoredVM[], count: number): Promise<void> {
    const running = filterRunningVMs(vms);
    // Upstream slices with a negative count here when more VMs are going than asked for, and panics.
    const wanted = Math.min(count - (vms.length - running.length), running.length);
    if (wanted <= 0) return;
    const policy = scaleInSelectionPolicy(pool);
    let candidates = sortVMs(running, policy?.sortPolicy, this.random);
    if (policy?.selectors) candidates = filterVMsBySelectors(candidates, policy.selectors);
    const victims = candidates.slice(0, wanted);
    this.writes.reporter.info(pool, `Removing ${wanted} VMs from pool`);
    this.expectations.expectDeletions(key, victims.map(keyOf));
    const errors = await Promise.all(victims.map((vm) => this.deleteVM(key, pool, vm)));
    const error = firstError(errors);
    if (error) throw error;
  }

  private async deleteVM(key: string, pool: StoredVMPool, vm: StoredVM): Promise<Error | undefined> {
    try {
      await this.writes.vms.delete(vm.metadata?.namespace ?? "", vm.metadata?.name ?? "");
    } catch (err) {
      // A deletion the server refused will never be observed.
      this.expectations.deletionObserved(key, keyOf(vm));
      this.writes.reporter.event(
        pool,
        "Warning",
        FailedDeleteVirtualMachineReason,
        `Error deleting virtual machine ${vmName(vm)}: ${errorMessage(err)}`,
      );
      return asError(err);
    }
    let error: Error | undefined;
    try {
      await this.writes.cleanUpLeavingVM(pool, vm, preservesStateOnProactiveScaleIn(pool));
    } catch (err) {
      this.writes.reporter.event(
        pool,
        "Warning",
        FailedUpdateVirtualMachineReason,
        `Error preserving state of VM ${vmName(vm)}: ${errorMessage(err)}`,
      );
      error = asError(err);
    }
    // Upstream tells of the deletion even when the cleanup after it failed.
    this.writes.reporter.event(
      pool,
      "Normal",
      SuccessfulDeleteVirtualMachineReason,
      `Deleted VM ${vmName(vm)} with uid ${vm.metadata?.uid ?? ""} from pool`,
    );
    return error;
  }

  /** opportunisticScaleIn: VMs being deleted lose the pool finalizer (unless scale-in is unmanaged). */
  private async releaseDeletingVMs(pool: StoredVMPool, vms: readonly StoredVM[]): Promise<Error | undefined> {
    if (isUnmanagedScaleIn(pool)) return undefined;
    let last: Error | undefined;
    for (const vm of filterDeletingVMs(vms)) {
      try {
        await this.writes.cleanUpLeavingVM(pool, vm, preservesStateOnOpportunisticScaleIn(pool));
      } catch (err) {
        last = asError(err);
        this.writes.reporter.error(vm, last, "Failed to remove the pool finalizer from a deleted VM");
      }
    }
    return last;
  }
}

// The writes the pool controller makes besides creating VMs and revisions: the pool finalizer on the pool
// and on its VMs, and the cleanup of a VM that leaves the pool (upstream's statePreservationCleanupforVM,
// its disks released first when the pool preserves state).
import { isNotFound } from "../../../controller/api-error.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import { setFinalizer } from "../../../controller/finalizers.js";
import type { KubeObject } from "../../../controller/object.js";
import {
  virtualMachineInstancesGVR,
  virtualMachinePoolsGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
  type StoredVMPool,
} from "../../../controller/resources.js";
import { VirtualMachinePoolControllerFinalizer } from "../../../util/constants.js";
import { errorMessage } from "../../../util/error-message.js";
import { FailedUpdateVirtualMachineReason } from "../common/events.js";
import type { Reporter } from "../common/reporter.js";
import { coreGVR } from "../../../controller/gvr.js";
import { dataVolumesGVR } from "../../../storage/types/cdi.js";
import { clientLookup, StatePreserver, type StateLookups } from "./pool-state.js";

export const vmName = (vm: KubeObject): string =>
  `${vm.metadata?.namespace ?? ""}/${vm.metadata?.name ?? ""}`;

export class PoolWrites {
  readonly vms: ResourceClient<StoredVM>;
  readonly vmis: ResourceClient<StoredVMI>;
  readonly pools: ResourceClient<StoredVMPool>;

  private readonly state: StatePreserver;

  constructor(
    client: KubeClient,
    readonly reporter: Reporter,
    /** Where the PVCs and DataVolumes of a VM whose state is kept are read; default: the apiserver. */
    lookups: Partial<StateLookups> = {},
  ) {
    this.state = new StatePreserver(
      client,
      {
        pvcs: lookups.pvcs ?? clientLookup(client, coreGVR.persistentVolumeClaims),
        dataVolumes: lookups.dataVolumes ?? clientLookup(client, dataVolumesGVR),
      },
      (vm, message) => reporter.info(vm, message),
    );
    this.vms = client.resource<StoredVM>(virtualMachinesGVR);
    this.vmis = client.resource<StoredVMI>(virtualMachineInstancesGVR);
    this.pools = client.resource<StoredVMPool>(virtualMachinePoolsGVR);
  }

  /** Sets the pool finalizer present or absent; answers the object as written (or as it was). */
  private async setPoolFinalizer<T extends KubeObject>(
    client: ResourceClient<T>,
    obj: T,
    present: boolean,
  ): Promise<T> {
    try {
      return await setFinalizer(client, obj, VirtualMachinePoolControllerFinalizer, present);
    } catch (err) {
      if (isNotFound(err)) return obj;
      throw err;
    }
  }

  addPoolFinalizer(pool: StoredVMPool): Promise<StoredVMPool> {
    return this.setPoolFinalizer(this.pools, pool, true);
  }

  async removePoolFinalizer(pool: StoredVMPool): Promise<void> {
    await this.setPoolFinalizer(this.pools, pool, false);
  }

  async removeVMFinalizer(vm: StoredVM): Promise<void> {
    await this.setPoolFinalizer(this.vms, vm, false);
  }

  /**
   * Upstream's statePreservationCleanupforVM: a VM leaving the pool lets go of the pool's finalizer, and
   * first of its PVCs and DataVolumes when the pool preserves state.
   */
  async cleanUpLeavingVM(pool: StoredVMPool, vm: StoredVM, preserveState = false): Promise<void> {
    if (preserveState) {
      await this.reporting(pool, vm, "Error removing PVC owner references", () =>
        this.state.removePVCOwnerReferences(vm),
      );
      await this.reporting(pool, vm, "Error removing DataVolume owner references", () =>
        this.state.removeDataVolumeOwnerReferences(vm),
      );
    }
    await this.reporting(pool, vm, "Error removing finalizer", () => this.removeVMFinalizer(vm));
    this.reporter.info(vm, `Removing VM ${vmName(vm)} from pool`);
  }

  private async reporting(pool: StoredVMPool, vm: StoredVM, what: string, write: () => Promise<void>) {
    try {
      await write();
    } catch (err) {
      this.reporter.event(
        pool,
        "Warning",
        FailedUpdateVirtualMachineReason,
        `${what} for VM ${vmName(vm)}: ${errorMessage(err)}`,
      );
      throw err;
    }
  }
}

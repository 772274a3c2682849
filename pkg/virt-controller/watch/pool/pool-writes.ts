// The writes the pool controller makes besides creating VMs and revisions: the pool finalizer on the pool
// and on its VMs, and the cleanup of a VM that leaves the pool (upstream's statePreservationCleanupforVM).
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

export const vmName = (vm: KubeObject): string =>
  `${vm.metadata?.namespace ?? ""}/${vm.metadata?.name ?? ""}`;

export class PoolWrites {
  readonly vms: ResourceClient<StoredVM>;
  readonly vmis: ResourceClient<StoredVMI>;
  readonly pools: ResourceClient<StoredVMPool>;

  constructor(
    client: KubeClient,
    readonly reporter: Reporter,
  ) {
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
   * A VM leaving the pool lets go of the pool's finalizer. Preserving its state would also free its PVCs
   * and DataVolumes from the VM; kubevirt-ts admits neither kind of volume yet, so there are none.
   */
  async cleanUpLeavingVM(pool: StoredVMPool, vm: StoredVM): Promise<void> {
    try {
      await this.removeVMFinalizer(vm);
    } catch (err) {
      this.reporter.event(
        pool,
        "Warning",
        FailedUpdateVirtualMachineReason,
        `Error removing finalizer for VM ${vmName(vm)}: ${errorMessage(err)}`,
      );
      throw err;
    }
    this.reporter.info(vm, `Removing VM ${vmName(vm)} from pool`);
  }
}

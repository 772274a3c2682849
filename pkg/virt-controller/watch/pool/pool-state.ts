// Upstream's state preservation on scale-in (scaleInStrategy.proactive/opportunistic.statePreservation,
// Offline or Online; Disabled by default): a VM that leaves the pool keeps its disks. The PVCs and
// DataVolumes it controls (its DataVolumeTemplates, and the claims and DataVolumes its volumes name) lose
// their owner references to it before its finalizer goes, so the garbage collector leaves them behind.
import { isNotFound } from "../../../controller/api-error.js";
import type { KubeClient } from "../../../controller/client.js";
import { coreGVR, type GroupVersionResource } from "../../../controller/gvr.js";
import type { KubeObject } from "../../../controller/object.js";
import type { StoredVM, StoredVMPool } from "../../../controller/resources.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { dataVolumesGVR } from "../../../storage/types/cdi.js";
import { errorMessage } from "../../../util/error-message.js";
import { isControlledBy } from "../common/pod-state.js";

export const StatePreservationDisabled = "Disabled";

/** Whether a proactive scale-in (and autohealing) keeps the state of the VMs it deletes. */
export const preservesStateOnProactiveScaleIn = (pool: StoredVMPool): boolean =>
  (pool.spec.scaleInStrategy?.proactive?.statePreservation ?? StatePreservationDisabled) !==
  StatePreservationDisabled;

/** Whether VMs deleted by someone else keep their state when the pool lets them go (opportunistic). */
export const preservesStateOnOpportunisticScaleIn = (pool: StoredVMPool): boolean =>
  (pool.spec.scaleInStrategy?.opportunistic?.statePreservation ?? StatePreservationDisabled) !==
  StatePreservationDisabled;

/** A cache read: the object, or undefined when it does not exist. */
export type ObjectLookup = (namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface StateLookups {
  pvcs: ObjectLookup;
  dataVolumes: ObjectLookup;
}

/** Lookups through the apiserver (a NotFound is a missing object), for what has no cache. */
export function clientLookup(client: KubeClient, gvr: GroupVersionResource): ObjectLookup {
  const resource = client.resource<KubeObject>(gvr);
  return async (namespace, name) => {
    try {
      return await resource.get(namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
}

export class StatePreserver {
  constructor(
    private readonly client: KubeClient,
    private readonly lookups: StateLookups,
    private readonly warn: (vm: StoredVM, message: string) => void = () => undefined,
  ) {}

  async removePVCOwnerReferences(vm: StoredVM): Promise<void> {
    const names = new Set(
      (vm.spec.dataVolumeTemplates ?? []).map((template) => template.metadata?.name ?? ""),
    );
    for (const volume of vm.spec.template.spec?.volumes ?? []) {
      if (volume.persistentVolumeClaim) names.add(volume.persistentVolumeClaim.claimName);
    }
    await this.release(vm, names, "PVC", this.lookups.pvcs, coreGVR.persistentVolumeClaims);
  }

  async removeDataVolumeOwnerReferences(vm: StoredVM): Promise<void> {
    const names = new Set(
      (vm.spec.dataVolumeTemplates ?? []).map((template) => template.metadata?.name ?? ""),
    );
    for (const volume of vm.spec.template.spec?.volumes ?? []) {
      if (volume.dataVolume) names.add(volume.dataVolume.name);
    }
    await this.release(vm, names, "DataVolume", this.lookups.dataVolumes, dataVolumesGVR);
  }

  private async release(
    vm: StoredVM,
    names: ReadonlySet<string>,
    kind: "PVC" | "DataVolume",
    lookup: ObjectLookup,
    gvr: GroupVersionResource,
  ): Promise<void> {
    const namespace = vm.metadata?.namespace ?? "";
    const uid = vm.metadata?.uid;
    for (const name of names) {
      let obj: KubeObject | undefined;
      try {
        obj = await lookup(namespace, name);
      } catch (err) {
        throw new Error(`failed to get ${kind} ${name} from store: ${errorMessage(err)}`);
      }
      if (obj === undefined) {
        this.warn(vm, `${kind} ${name} does not exist`);
        continue;
      }
      if (!isControlledBy(obj, uid)) continue;
      const refs = obj.metadata?.ownerReferences ?? [];
      const patch = new PatchSet().testAndSet(
        "/metadata/ownerReferences",
        refs,
        refs.filter((ref) => ref.uid !== uid),
      );
      try {
        await this.client.resource(gvr).patch(namespace, name, "json", patch.toJSON());
      } catch (err) {
        throw new Error(`failed to remove owner reference from ${kind} ${name}: ${errorMessage(err)}`);
      }
    }
  }
}

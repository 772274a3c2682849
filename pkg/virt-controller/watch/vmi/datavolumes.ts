// Whether the claims of a VMI's volumes are there before its launcher Pod is created (upstream's
// watch/vmi/datavolumes.go areDataVolumesReady). A claim that does not exist yet is waited for: the user
// or a provisioner may still create it. A claim that exists is enough, bound or not: a
// WaitForFirstConsumer claim binds only once the scheduler places the Pod that uses it.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { SyncError } from "../../../controller/sync-error.js";
import { pvcNameFromVirtVolume } from "../../../storage/types/pvc.js";

export const FailedPvcNotFoundReason = "FailedPvcNotFound";

/** The first non-hotplugged PVC or DataVolume volume whose claim is missing, as upstream words it. */
export function missingClaim(vmi: VirtualMachineInstance, lookup: PVCLookup): SyncError | undefined {
  const namespace = vmi.metadata?.namespace ?? "";
  for (const volume of vmi.spec.volumes ?? []) {
    const claimed =
      (volume.dataVolume !== undefined && volume.dataVolume.hotpluggable !== true) ||
      (volume.persistentVolumeClaim !== undefined && volume.persistentVolumeClaim.hotpluggable !== true);
    if (!claimed) continue;
    const name = pvcNameFromVirtVolume(volume);
    if (lookup(namespace, name)) continue;
    // Informal: a retry cannot help until the claim appears, and its arrival wakes the VMI.
    return new SyncError(
      `PVC ${namespace}/${name} does not exist, waiting for it to appear`,
      FailedPvcNotFoundReason,
      false,
    );
  }
  return undefined;
}

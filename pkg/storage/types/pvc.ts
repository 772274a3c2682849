// Claim helpers virt-controller shares (upstream pkg/storage/types/pvc.go).
import type { PersistentVolumeClaim, PVCLookup } from "../../api/core/v1/persistentvolumeclaim.js";
import type { PersistentVolumeClaimInfo, Volume } from "../../api/generated/v1.js";

/** A volume's claim is not in the cache; the VMI controller reports it as FailedPvcNotFound. */
export class PvcNotFoundError extends Error {
  override readonly name = "PvcNotFoundError";
}

/** The filesystem overhead upstream assumes when CDI (and so its CDIConfig) is not installed. */
export const DefaultFSOverhead = "0.055";

/** ReadWriteMany: the volume is shared between nodes (a migration target may mount it too). */
export const hasSharedAccessModes = (accessModes: readonly string[] | undefined): boolean =>
  (accessModes ?? []).includes("ReadWriteMany");
export const hasSharedAccessMode = (pvc: PersistentVolumeClaim): boolean =>
  hasSharedAccessModes(pvc.spec.accessModes);

/** A claim of volumeMode Block is a raw device; anything else (Filesystem, unset) holds files. */
export const isPVCBlock = (volumeMode: string | undefined): boolean => volumeMode === "Block";

/**
 * The claim behind a dataVolume, persistentVolumeClaim or memoryDump volume; "" for other sources (an
 * ephemeral volume's base claim is not counted, as upstream).
 */
export function pvcNameFromVirtVolume(volume: Volume): string {
  return (
    volume.dataVolume?.name ?? volume.persistentVolumeClaim?.claimName ?? volume.memoryDump?.claimName ?? ""
  );
}

/** Thick provisioning asked for by a storage.preallocation or storage.thick-provisioned annotation. */
export function isPreallocated(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(annotations ?? {}).some(
    ([key, value]) =>
      value === "true" &&
      (key.includes("/storage.preallocation") || key.includes("/storage.thick-provisioned")),
  );
}

/** What virt-handler and the launcher need to know of a claim, cached in the VMI's volume status. */
export function persistentVolumeClaimInfo(pvc: PersistentVolumeClaim): PersistentVolumeClaimInfo {
  const info: PersistentVolumeClaimInfo = {
    claimName: pvc.metadata.name ?? "",
    // Without CDI there is no CDIConfig to read a per-class overhead from.
    filesystemOverhead: DefaultFSOverhead,
  };
  if (pvc.spec.accessModes)
    info.accessModes = pvc.spec.accessModes as PersistentVolumeClaimInfo["accessModes"];
  if (pvc.spec.volumeMode) info.volumeMode = pvc.spec.volumeMode as PersistentVolumeClaimInfo["volumeMode"];
  if (pvc.status?.capacity) info.capacity = pvc.status.capacity;
  if (pvc.spec.resources?.requests) info.requests = pvc.spec.resources.requests;
  if (isPreallocated(pvc.metadata.annotations)) info.preallocated = true;
  return info;
}

/** Some claim of the volumes exists but is not Bound yet (the VM's WaitingForVolumeBinding). */
export function hasUnboundPVC(namespace: string, volumes: readonly Volume[], lookup: PVCLookup): boolean {
  return volumes.some((volume) => {
    const name = pvcNameFromVirtVolume(volume);
    if (name === "") return false;
    const pvc = lookup(namespace, name);
    return pvc !== undefined && pvc.status?.phase !== "Bound";
  });
}

// Which of a VMI's volumes are hotplugged (upstream pkg/storage/types/volume.go), and the phases a
// hotplugged volume's status goes through (the VolumePhase constants of kubevirt.io/api core/v1).
import type { VirtualMachineInstance, Volume } from "../../api/generated/v1.js";
import type { Pod } from "../../api/core/v1/pod.js";

/**
 * virt-controller moves a hotplugged volume from Pending/Bound to AttachedToNode (its attachment pod
 * runs) and to Detaching (it left the spec); virt-handler moves it to MountedToPod, Ready and
 * UnMountedFromPod.
 */
export const VolumePhase = {
  Pending: "Pending",
  Bound: "Bound",
  AttachedToNode: "AttachedToNode",
  MountedToPod: "MountedToPod",
  Ready: "Ready",
  Detaching: "Detaching",
  UnMountedFromPod: "UnMountedFromPod",
  MemoryDumpCompleted: "MemoryDumpCompleted",
  MemoryDumpInProgress: "MemoryDumpInProgress",
  MemoryDumpFailed: "MemoryDumpFailed",
} as const;

export const isStorageVolume = (volume: Volume): boolean =>
  volume.persistentVolumeClaim !== undefined || volume.dataVolume !== undefined;

/** A claim or DataVolume marked hotpluggable. */
export const isDeclarativeHotplugVolume = (volume: Volume): boolean =>
  volume.persistentVolumeClaim?.hotpluggable === true || volume.dataVolume?.hotpluggable === true;

export const isHotpluggableVolumeSource = (volume: Volume): boolean =>
  isStorageVolume(volume) || volume.memoryDump !== undefined;

/** A hotpluggable claim, DataVolume or memory dump volume. */
export const isHotplugVolume = (volume: Volume): boolean =>
  isDeclarativeHotplugVolume(volume) || volume.memoryDump?.hotpluggable === true;

export const isUtilityVolume = (vmi: VirtualMachineInstance, volumeName: string): boolean =>
  (vmi.spec.utilityVolumes ?? []).some((volume) => volume.name === volumeName);

/**
 * The claim volumes of the VMI its launcher Pod does not carry, so they need an attachment pod; utility
 * volumes among them as hotpluggable claims.
 */
export function getHotplugVolumes(vmi: VirtualMachineInstance, launcherPod: Pod): Volume[] {
  const inPod = new Set((launcherPod.spec.volumes ?? []).map((volume) => volume.name));
  const volumes = (vmi.spec.volumes ?? [])
    .filter((volume) => !inPod.has(volume.name) && isHotpluggableVolumeSource(volume))
    .map((volume) => structuredClone(volume));
  for (const utility of vmi.spec.utilityVolumes ?? []) {
    if (inPod.has(utility.name)) continue;
    const source: NonNullable<Volume["persistentVolumeClaim"]> = {
      claimName: utility.claimName,
      hotpluggable: true,
    };
    if (utility.readOnly !== undefined) source.readOnly = utility.readOnly;
    volumes.push({ name: utility.name, persistentVolumeClaim: source });
  }
  return volumes;
}

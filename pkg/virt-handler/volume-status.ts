// virt-handler's half of status.volumeStatus (upstream vm.go updateVolumeStatusesFromDomain and
// updateHotplugVolumeStatus): every entry's target is the domain disk's device, and a hotplug volume moves
// to MountedToPod once it is in the launcher pod, to Ready once the domain has it, and to UnMountedFromPod
// once it left the spec and the pod. Each phase change is an event with the entry's reason and message.
import type { VirtualMachineInstance, VolumeStatus } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { isHotplugVolume, VolumePhase } from "../storage/types/volume.js";

export const VolumeReadyReason = "VolumeReady";
export const VolumeMountedToPodReason = "VolumeMountedToPod";
export const VolumeUnMountedFromPodReason = "VolumeUnMountedFromPod";

const canUpdateToMounted = (phase: string | undefined) =>
  phase === VolumePhase.Bound || phase === VolumePhase.Pending || phase === VolumePhase.AttachedToNode;

const canUpdateToUnmounted = (phase: string | undefined) =>
  phase === VolumePhase.Ready || phase === VolumePhase.MountedToPod || phase === VolumePhase.AttachedToNode;

export interface VolumeStatusUpdate {
  volumeStatus: VolumeStatus[];
  /** Phase changes to record as Normal events. */
  events: Array<{ reason: string; message: string }>;
  /** A hotplug volume waits for a mount or an attach: look again soon (upstream requeues after 1 s). */
  needsRefresh: boolean;
}

/** The hotplug volumes whose mount state matters now: those not attached to the domain yet. */
export function volumesToProbe(vmi: VirtualMachineInstance, domain: DomainObject | undefined): string[] {
  const attached = attachedTargets(domain);
  return (vmi.status?.volumeStatus ?? [])
    .filter((status) => status.hotplugVolume && !attached.has(status.name))
    .map((status) => status.name);
}

/** Volume name → target device of the domain's disks that have a source (empty cdroms do not count). */
function attachedTargets(domain: DomainObject | undefined): Map<string, string> {
  const targets = new Map<string, string>();
  for (const disk of domain?.spec.devices?.disks ?? []) {
    if (!disk.source.file && !disk.source.dev) continue;
    if (disk.alias?.name) targets.set(disk.alias.name, disk.target.device ?? "");
  }
  return targets;
}

/**
 * The new volume statuses; `mounted` answers, for the volumes volumesToProbe named, whether the volume is
 * in the launcher pod (a volume it cannot tell about counts as not mounted, as upstream).
 */
export function updateVolumeStatuses(
  vmi: VirtualMachineInstance,
  domain: DomainObject | undefined,
  mounted: ReadonlyMap<string, boolean>,
): VolumeStatusUpdate {
  const previous = vmi.status?.volumeStatus ?? [];
  if (previous.length === 0) return { volumeStatus: [], events: [], needsRefresh: false };
  const targets = attachedTargets(domain);
  const inSpec = new Set([
    ...(vmi.spec.volumes ?? []).map((volume) => volume.name),
    ...(vmi.spec.utilityVolumes ?? []).map((volume) => volume.name),
  ]);
  let needsRefresh = false;
  const events: VolumeStatusUpdate["events"] = [];
  const next = previous.map((old) => {
    const status: VolumeStatus = { ...old, target: targets.get(old.name) ?? "" };
    if (status.hotplugVolume) {
      if (status.target === "") {
        needsRefresh = true;
        hotplugPhaseFromMount(status, mounted.get(status.name) ?? false, inSpec.has(status.name));
      } else {
        status.phase = VolumePhase.Ready;
        status.message = `Successfully attach hotplugged volume ${status.name} to VM`;
        status.reason = VolumeReadyReason;
      }
    }
    if (status.phase !== old.phase)
      events.push({ reason: status.reason ?? "", message: status.message ?? "" });
    return status;
  });
  next.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { volumeStatus: next, events, needsRefresh };
}

function hotplugPhaseFromMount(status: VolumeStatus, mounted: boolean, inSpec: boolean): void {
  if (mounted && inSpec && canUpdateToMounted(status.phase)) {
    status.phase = VolumePhase.MountedToPod;
    status.message = `Volume ${status.name} has been mounted in virt-launcher pod`;
    status.reason = VolumeMountedToPodReason;
  } else if (!mounted && !inSpec && canUpdateToUnmounted(status.phase)) {
    status.phase = VolumePhase.UnMountedFromPod;
    status.message = `Volume ${status.name} has been unmounted from virt-launcher pod`;
    status.reason = VolumeUnMountedFromPodReason;
  }
}

/** Upstream hotplugVolumesReady: a starting VMI waits until every hotplug volume is in its pod. */
export function hotplugVolumesReady(vmi: VirtualMachineInstance): boolean {
  const hasHotplug =
    (vmi.spec.volumes ?? []).some(isHotplugVolume) || (vmi.spec.utilityVolumes ?? []).length > 0;
  if (!hasHotplug) return true;
  const statuses = vmi.status?.volumeStatus ?? [];
  if (statuses.length === 0) return false;
  return statuses.every(
    (status) =>
      !status.hotplugVolume ||
      status.phase === VolumePhase.Ready ||
      status.phase === VolumePhase.MountedToPod,
  );
}

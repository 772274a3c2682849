// What KubeVirt's own service accounts may change in a running VMI's storage (upstream pkg/storage/admitters
// storagehotplug.go, called by the VMI update admitter): volumes and disks still pair up, the volumes the
// VMI started with (those with a status but no hotplug status) stay as they are, and a newly plugged
// volume is a claim, a DataVolume or a memory dump with a disk fit for hotplug. A volume being migrated
// may change its source. Utility volumes are always hotplugged and never change once there.
//
// Each rule answers with upstream's causes, which name no field unless upstream names one. Where upstream
// walks a Go map (no fixed order), the volumes are walked in spec order.
import { Path } from "../../api/field.js";
import type {
  Disk,
  Filesystem,
  StorageMigratedVolumeInfo,
  UtilityVolume,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
  Volume,
  VolumeStatus,
} from "../../api/generated/v1.js";
import { semanticallyEqual } from "../../apimachinery/semantic-equal.js";
import { duplicateCause, invalidCause, requiredCause, type StatusCause } from "../../api/causes.js";
import { validateHotplugDiskConfiguration } from "./hotplug-disk.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";

/** The old and new volumes and disks of a VMI update, and the stored VMI's volume statuses. */
export interface HotplugStorageChange {
  newVolumes: readonly Volume[];
  oldVolumes: readonly Volume[];
  newDisks: readonly Disk[];
  oldDisks: readonly Disk[];
  volumeStatuses: readonly VolumeStatus[];
  /** The updated VMI: its filesystems and its status' migrated volumes. */
  newVMI: VirtualMachineInstance;
}

const refuse = (message: string): StatusCause[] => [invalidCause(message)];

/** Upstream's AdmitHotplugStorage: no causes when the storage change is one a running VMI takes. */
export function admitHotplugStorage(change: HotplugStorageChange, config: ClusterConfig): StatusCause[] {
  const { newVolumes, oldVolumes, newDisks, oldDisks, volumeStatuses, newVMI } = change;
  const mismatch = validateExpectedDisksAndFilesystems(
    newVolumes,
    newDisks,
    newVMI.spec.domain.devices.filesystems ?? [],
    config,
  );
  if (mismatch !== undefined) return refuse(mismatch);

  const migrated = migratedVolumeNames(newVMI.status?.migratedVolumes ?? []);
  const newDiskMap = getDiskMap(newDisks);
  const oldDiskMap = getDiskMap(oldDisks);
  const permanent = verifyPermanentVolumes(
    getPermanentVolumes(newVolumes, volumeStatuses),
    getPermanentVolumes(oldVolumes, volumeStatuses),
    newDiskMap,
    oldDiskMap,
    migrated,
  );
  if (permanent.length > 0) return permanent;
  return verifyHotplugVolumes(
    getHotplugVolumes(newVolumes, volumeStatuses),
    getHotplugVolumes(oldVolumes, volumeStatuses),
    newDiskMap,
    oldDiskMap,
    migrated,
  );
}

/**
 * Every volume but a memory dump backs exactly one disk or filesystem; with DeclarativeHotplugVolumes a
 * CD-ROM may stay without a volume (ejected). The mismatch message, if any.
 */
function validateExpectedDisksAndFilesystems(
  volumes: readonly Volume[],
  disks: readonly Disk[],
  filesystems: readonly Filesystem[],
  config: ClusterConfig,
): string | undefined {
  const names = new Set(volumes.filter((volume) => !volume.memoryDump).map((volume) => volume.name));
  const declarativeHotplug = config.isFeatureGateEnabled(FeatureGate.DeclarativeHotplugVolumes);
  let required = filesystems.length;
  for (const disk of disks) {
    if (!names.has(disk.name) && disk.cdrom && declarativeHotplug) continue;
    required++;
  }
  if (required !== names.size) {
    return `mismatch between volumes declared (${names.size}) and required (${required})`;
  }
  return undefined;
}

function verifyPermanentVolumes(
  newPermanent: ReadonlyMap<string, Volume>,
  oldPermanent: ReadonlyMap<string, Volume>,
  newDisks: ReadonlyMap<string, Disk>,
  oldDisks: ReadonlyMap<string, Disk>,
  migrated: ReadonlySet<string>,
): StatusCause[] {
  if (newPermanent.size !== oldPermanent.size) return refuse("Number of permanent volumes has changed");
  for (const [name, volume] of newPermanent) {
    const oldVolume = oldPermanent.get(name);
    if (oldVolume === undefined) return refuse(`permanent volume ${name}, not found`);
    if (isMigratedVolume(volume, oldVolume, migrated)) continue;
    if (!semanticallyEqual(volume, oldVolume)) return refuse(`permanent volume ${name}, changed`);
    if (!semanticallyEqual(newDisks.get(name), oldDisks.get(name))) {
      return refuse(`permanent disk ${name}, changed`);
    }
  }
  return [];
}

function verifyHotplugVolumes(
  newHotplug: ReadonlyMap<string, Volume>,
  oldHotplug: ReadonlyMap<string, Volume>,
  newDisks: ReadonlyMap<string, Disk>,
  oldDisks: ReadonlyMap<string, Disk>,
  migrated: ReadonlySet<string>,
): StatusCause[] {
  for (const [name, volume] of newHotplug) {
    const oldVolume = oldHotplug.get(name);
    if (oldVolume !== undefined) {
      if (!semanticallyEqual(volume, oldVolume) && !migrated.has(name)) {
        return refuse(`hotplug volume ${name}, changed`);
      }
      if (!volume.memoryDump) {
        if (!newDisks.has(name)) return refuse(`volume ${name} doesn't have a matching disk`);
        if (!semanticallyEqual(newDisks.get(name), oldDisks.get(name))) {
          return refuse(`hotplug disk ${name}, changed`);
        }
      }
      continue;
    }
    if (!volume.dataVolume && !volume.persistentVolumeClaim && !volume.memoryDump) {
      return refuse(`volume ${name} is not a PVC or DataVolume`);
    }
    if (volume.memoryDump) continue;
    const disk = newDisks.get(name);
    if (disk === undefined) return refuse(`disk ${name} does not exist`);
    if (!oldDisks.has(name)) {
      const causes = validateHotplugDiskConfiguration(disk, name, "Hotplug configuration", "");
      if (causes.length > 0) return causes;
    }
  }
  return [];
}

/** A volume of the same name the VMI's storage migration is moving to another claim. */
function isMigratedVolume(volume: Volume, oldVolume: Volume, migrated: ReadonlySet<string>): boolean {
  return volume.name === oldVolume.name && migrated.has(volume.name);
}

/** Named disks by name (a later disk of the same name wins, as in upstream's map). */
function getDiskMap(disks: readonly Disk[]): Map<string, Disk> {
  const map = new Map<string, Disk>();
  for (const disk of disks) if (disk.name !== "") map.set(disk.name, disk);
  return map;
}

/** Names of the volumes the VMI started with: those with a status that is not a hotplug one. */
function permanentNames(volumeStatuses: readonly VolumeStatus[]): Set<string> {
  return new Set(volumeStatuses.filter((status) => !status.hotplugVolume).map((status) => status.name));
}

/** The volumes that are not permanent (no status yet, or a hotplug status), by name. */
export function getHotplugVolumes(
  volumes: readonly Volume[],
  volumeStatuses: readonly VolumeStatus[],
): Map<string, Volume> {
  const permanent = permanentNames(volumeStatuses);
  return new Map(
    volumes.filter((volume) => !permanent.has(volume.name)).map((volume) => [volume.name, volume]),
  );
}

/** The volumes whose status is not a hotplug one, by name. */
export function getPermanentVolumes(
  volumes: readonly Volume[],
  volumeStatuses: readonly VolumeStatus[],
): Map<string, Volume> {
  const permanent = permanentNames(volumeStatuses);
  return new Map(
    volumes.filter((volume) => permanent.has(volume.name)).map((volume) => [volume.name, volume]),
  );
}

function migratedVolumeNames(migratedVolumes: readonly StorageMigratedVolumeInfo[]): Set<string> {
  return new Set(migratedVolumes.map((volume) => volume.volumeName));
}

/** Utility volumes need their gate, a name unique among all volumes, and a claim. */
function validateUtilityVolumes(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const utilityVolumes = spec.utilityVolumes ?? [];
  const utilityField = field.child("utilityVolumes");
  if (utilityVolumes.length > 0 && !config.isFeatureGateEnabled(FeatureGate.UtilityVolumes)) {
    return [invalidCause("UtilityVolumes feature gate is not enabled", utilityField)];
  }
  const volumeIndexes = new Map<string, number>();
  (spec.volumes ?? []).forEach((volume, index) => volumeIndexes.set(volume.name, index));

  const causes: StatusCause[] = [];
  const utilityIndexes = new Map<string, number>();
  utilityVolumes.forEach((utilityVolume, index) => {
    const at = utilityField.index(index);
    if (utilityVolume.name === "") {
      causes.push(requiredCause("UtilityVolume 'name' must be set", at.child("name")));
    }
    const otherIndex = utilityIndexes.get(utilityVolume.name);
    if (otherIndex !== undefined) {
      causes.push(
        duplicateCause(
          `${at.toString()} and ${utilityField.index(otherIndex).toString()} must not have the same Name.`,
          at.child("name"),
        ),
      );
    } else {
      utilityIndexes.set(utilityVolume.name, index);
    }
    const volumeIndex = volumeIndexes.get(utilityVolume.name);
    if (volumeIndex !== undefined) {
      causes.push(
        duplicateCause(
          `${at.toString()} conflicts with ${field.child("volumes").index(volumeIndex).toString()}. ` +
            "UtilityVolume names must be unique across both volumes and utilityVolumes.",
          at.child("name"),
        ),
      );
    }
    if (utilityVolume.claimName === "") {
      causes.push(requiredCause("UtilityVolume PVC 'claimName' must be set", at.child("claimName")));
    }
  });
  return causes;
}

/**
 * Upstream's AdmitUtilityVolumes: the new spec's utility volumes are valid and, on an update (`oldSpec`
 * given), none has a permanent volume status and none that was there changed.
 */
export function admitUtilityVolumes(
  newSpec: VirtualMachineInstanceSpec,
  oldSpec: VirtualMachineInstanceSpec | undefined,
  volumeStatuses: readonly VolumeStatus[],
  config: ClusterConfig,
): StatusCause[] {
  const causes = validateUtilityVolumes(Path.of("spec"), newSpec, config);
  if (causes.length > 0) return causes;
  if (oldSpec === undefined) return [];

  const permanent = permanentNames(volumeStatuses);
  for (const utilityVolume of newSpec.utilityVolumes ?? []) {
    if (permanent.has(utilityVolume.name)) {
      return refuse(
        `utility volume ${utilityVolume.name} cannot be a permanent volume, utility volumes must always be hotplug`,
      );
    }
  }
  const oldUtilityVolumes = utilityVolumeMap(oldSpec.utilityVolumes ?? []);
  for (const [name, utilityVolume] of utilityVolumeMap(newSpec.utilityVolumes ?? [])) {
    const oldUtilityVolume = oldUtilityVolumes.get(name);
    if (oldUtilityVolume !== undefined && !semanticallyEqual(utilityVolume, oldUtilityVolume)) {
      return refuse(`utility volume ${name} has changed`);
    }
  }
  return [];
}

function utilityVolumeMap(utilityVolumes: readonly UtilityVolume[]): Map<string, UtilityVolume> {
  return new Map(utilityVolumes.map((volume) => [volume.name, volume]));
}

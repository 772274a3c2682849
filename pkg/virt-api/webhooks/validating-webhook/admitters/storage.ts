// Storage rules that relate disks, volumes and filesystems (upstream vmi-create-admitter.go and
// pkg/storage/admitters): every disk has its volume, every volume (on a VMI) its disk or filesystem,
// unique boot orders across disks and interfaces, LUN and downwardMetrics disk mapping, containerDisk
// paths, and the feature gates of virtiofs storage and persistent reservations.
import type { Volume, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { invalidCause, requiredCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { validatePath } from "./disks.js";

const notFound = (at: Path, name: string): string => `${at.toString()} '${name}' not found.`;

/** Disk → volume mapping and boot order uniqueness, disks first, then interfaces (upstream's validateBootOrder). */
export function validateBootOrder(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const usedBootOrders = new Set<number>();
  const volumesByName = new Map<string, Volume>();
  for (const volume of spec.volumes ?? []) volumesByName.set(volume.name, volume);
  const disks = field.child("domain", "devices", "disks");
  (spec.domain.devices.disks ?? []).forEach((disk, index) => {
    const at = disks.index(index);
    const volume = volumesByName.get(disk.name);
    if (volume === undefined) {
      // Upstream capitalises "Name" in the message only.
      if (disk.cdrom === undefined)
        causes.push(invalidCause(notFound(at.child("Name"), disk.name), at.child("name")));
      else if (!config.isFeatureGateEnabled(FeatureGate.DeclarativeHotplugVolumes)) {
        causes.push(
          invalidCause(
            "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk",
            at.child("name"),
          ),
        );
      }
    }
    if (
      disk.lun !== undefined &&
      volume !== undefined &&
      !volume.persistentVolumeClaim &&
      !volume.dataVolume
    ) {
      const lun = at.child("lun");
      causes.push(
        invalidCause(
          `${lun.toString()} can only be mapped to a DataVolume or PersistentVolumeClaim volume.`,
          lun,
        ),
      );
    }
    if (volume?.downwardMetrics !== undefined)
      causes.push(...downwardMetricsDisk(at, disk.disk?.bus, disk.disk !== undefined));
    if (disk.bootOrder !== undefined) {
      if (usedBootOrders.has(disk.bootOrder)) causes.push(bootOrderTaken(at.child("bootOrder")));
      usedBootOrders.add(disk.bootOrder);
    }
  });
  causes.push(...validateInterfaceBootOrder(field, spec, usedBootOrders));
  return causes;
}

function bootOrderTaken(at: Path): StatusCause {
  return invalidCause(`Boot order for ${at.toString()} already set for a different device.`, at);
}

function downwardMetricsDisk(at: Path, bus: string | undefined, isDisk: boolean): StatusCause[] {
  const diskPath = at.child("disk");
  if (!isDisk) {
    return [
      requiredCause(
        `DownwardMetrics volume must be mapped to a disk, but disk is not set on ${diskPath.toString()}.`,
        diskPath,
      ),
    ];
  }
  if (bus === undefined || bus === "" || bus === "virtio") return [];
  const busPath = diskPath.child("bus");
  return [
    invalidCause(
      `DownwardMetrics volume must be mapped to virtio bus, but ${busPath.toString()} is set to ${bus}`,
      busPath,
    ),
  ];
}

function validateInterfaceBootOrder(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  usedBootOrders: Set<number>,
): StatusCause[] {
  const causes: StatusCause[] = [];
  (spec.domain.devices.interfaces ?? []).forEach((iface, index) => {
    const order = iface.bootOrder;
    if (order === undefined) return;
    if (order < 1) {
      // Upstream indexes the spec path itself here (`spec[0]`); kept as KubeVirt reports it.
      causes.push(
        invalidCause(
          `${field.index(index).toString()} must have a boot order > 0, if supplied`,
          field.index(index).child("bootOrder"),
        ),
      );
      return;
    }
    if (usedBootOrders.has(order)) {
      causes.push(
        bootOrderTaken(field.child("domain", "devices", "interfaces").index(index).child("bootOrder")),
      );
    }
    usedBootOrders.add(order);
  });
  return causes;
}

/** Only for VMIs: every volume is used by a disk or a filesystem (upstream's validateVirtualMachineInstanceSpecVolumeDisks). */
export function validateVolumesHaveDisks(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const diskNames = new Set((spec.domain.devices.disks ?? []).map((disk) => disk.name));
  const filesystemNames = new Set((spec.domain.devices.filesystems ?? []).map((fs) => fs.name));
  const causes: StatusCause[] = [];
  // Upstream reports these under `spec.domain.volumes`, not `spec.volumes`; kept as KubeVirt reports it.
  const volumesPath = field.child("domain", "volumes");
  (spec.volumes ?? []).forEach((volume, index) => {
    if (volume.memoryDump !== undefined) return;
    const hasDisk = diskNames.has(volume.name);
    const hasFilesystem = filesystemNames.has(volume.name);
    const at = volumesPath.index(index);
    if (!hasDisk && !hasFilesystem)
      causes.push(invalidCause(notFound(at.child("name"), volume.name), at.child("name")));
    if (volume.containerPath !== undefined)
      causes.push(...containerPathVolume(at, volume, hasDisk, hasFilesystem));
  });
  return causes;
}

const RESERVED_CONTAINER_PATH_PREFIXES = ["/var/run/kubevirt", "/var/run/libvirt"];

function containerPathVolume(
  at: Path,
  volume: Volume,
  hasDisk: boolean,
  hasFilesystem: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (hasDisk) {
    causes.push(
      invalidCause(`ContainerPath volume '${volume.name}' must be mapped to a filesystem, not a disk`, at),
    );
  }
  if (!hasFilesystem) {
    causes.push(
      invalidCause(
        `ContainerPath volume '${volume.name}' must have a matching filesystem defined in spec.domain.devices.filesystems`,
        at,
      ),
    );
  }
  const path = volume.containerPath?.path ?? "";
  const reserved = RESERVED_CONTAINER_PATH_PREFIXES.find((prefix) => path.startsWith(prefix));
  if (reserved !== undefined) {
    causes.push(
      invalidCause(
        `ContainerPath volume '${volume.name}' uses reserved path prefix '${reserved}'`,
        at.child("containerPath", "path"),
      ),
    );
  }
  return causes;
}

export function validateContainerDisks(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return (spec.volumes ?? []).flatMap((volume, index) => {
    const path = volume.containerDisk?.path ?? "";
    if (path === "") return [];
    return validatePath(field.child("volumes").index(index).child("containerDisk"), path);
  });
}

export function validateUtilityVolumesNotPresentOnCreation(
  field: Path,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  if (spec.utilityVolumes === undefined) return [];
  return [
    invalidCause(
      "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug",
      field.child("utilityVolumes"),
    ),
  ];
}

export function validateFilesystemsWithVirtIOFSEnabled(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const volumesByName = new Map((spec.volumes ?? []).map((volume) => [volume.name, volume] as const));
  return (spec.domain.devices.filesystems ?? []).flatMap((fs) => {
    const volume = volumesByName.get(fs.name);
    const isStorageVolume = volume?.persistentVolumeClaim !== undefined || volume?.dataVolume !== undefined;
    if (!isStorageVolume || config.isFeatureGateEnabled(FeatureGate.VirtIOFSStorageVolumes)) return [];
    return [
      invalidCause(
        "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC",
        field.child("domain", "devices", "filesystems"),
      ),
    ];
  });
}

export function validatePersistentReservation(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const usesReservation = (spec.domain.devices.disks ?? []).some((disk) => disk.lun?.reservation === true);
  if (!usesReservation || config.isFeatureGateEnabled(FeatureGate.PersistentReservation)) return [];
  return [
    invalidCause(
      "persistent reservation is not enabled in kubevirt config",
      field.child("domain", "devices", "disks", "luns", "reservation"),
    ),
  ];
}

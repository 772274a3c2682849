// The converter's context for this launcher (upstream manager.generateConverterContext): the
// launcher's own paths for every volume and socket, the taps virt-handler made, and the cluster
// settings virt-handler passed with the sync.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { VirtualMachineOptions } from "../../handler-launcher-com/cmd/v1/messages.js";
import { diskTargetPathFromLauncherView, KERNEL_BOOT_NAME } from "../../container-disk/container-disk.js";
import { filePathForVolumeName } from "../../ephemeral-disk/empty-disk.js";
import { DataSource, isoFilePath } from "../../cloud-init/cloud-init.js";
import type { LauncherLayout } from "../layout.js";
import {
  blockVolumeDevicePath,
  CONFIG_DISK_KINDS,
  cloudInitDir,
  configDiskPath,
  emptyDiskDir,
  ephemeralOverlayPath,
  hostDiskImagePath,
  hotplugBlockDeviceVolumePath,
  hotplugDiskDir,
  pvcDiskImagePath,
  serialConsoleSocket,
  vncSocket,
} from "../layout.js";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { ConverterContext, InterfacePlumbing, VolumePaths } from "./converter/context.js";
import { DefaultEmulatorPath, hotplugAndPermanentVolumes } from "./converter/context.js";

export interface LauncherConverterInputs {
  allowEmulation: boolean;
  /** /dev/kvm is usable by QEMU's user. */
  hypervisorDeviceAvailable: boolean;
  /** Each containerDisk image's format, by volume name. */
  containerDiskFormats: ReadonlyMap<string, string>;
  /** The host side of each interface, by interface name. */
  interfaces: ReadonlyMap<string, InterfacePlumbing>;
  /** Claim-backed volumes whose claim is in Block mode (`blockClaimVolumes`). */
  blockVolumes: ReadonlySet<string>;
  options: VirtualMachineOptions | null;
}

/** Whether a path is a block device node; false when nothing is there. */
export function isBlockDevice(path: string): boolean {
  try {
    return statSync(path).isBlockDevice();
  } catch {
    return false;
  }
}

/**
 * The claim-backed volumes (persistentVolumeClaim, dataVolume, ephemeral) whose claim is in Block
 * mode (upstream manager isBlockDeviceVolume and isHotplugBlockDeviceVolume): the Pod's volumeDevices
 * put a Block claim's device at /dev/<volume>, while a Filesystem claim is mounted elsewhere; a
 * hotplugged claim's device is the node virt-handler made in the hotplug dir.
 */
export function blockClaimVolumes(
  vmi: VirtualMachineInstance,
  layout: LauncherLayout,
  isBlock: (path: string) => boolean = isBlockDevice,
): Set<string> {
  const hotplugged = new Set(
    (vmi.status?.volumeStatus ?? []).filter((status) => status.hotplugVolume).map((status) => status.name),
  );
  const devicePath = (name: string): string =>
    hotplugged.has(name) ? hotplugBlockDeviceVolumePath(layout, name) : blockVolumeDevicePath(name);
  const names = (vmi.spec.volumes ?? [])
    .filter((volume) => volume.persistentVolumeClaim || volume.dataVolume || volume.ephemeral)
    .map((volume) => volume.name)
    .filter((name) => isBlock(devicePath(name)));
  return new Set(names);
}

function claimPaths(layout: LauncherLayout, volumeName: string): { devicePath: string; imagePath: string } {
  return { devicePath: blockVolumeDevicePath(volumeName), imagePath: pvcDiskImagePath(layout, volumeName) };
}

function volumePaths(
  vmi: VirtualMachineInstance,
  layout: LauncherLayout,
  formats: ReadonlyMap<string, string>,
): Map<string, VolumePaths> {
  const paths = new Map<string, VolumePaths>();
  const { name = "", namespace = "" } = vmi.metadata ?? {};
  (vmi.spec.volumes ?? []).forEach((volume, index) => {
    if (volume.containerDisk) {
      paths.set(volume.name, {
        kind: "containerDisk",
        overlayPath: ephemeralOverlayPath(layout, volume.name),
        imagePath: diskTargetPathFromLauncherView(layout.containerDiskDir, index),
        imageFormat: formats.get(volume.name) ?? "",
      });
    } else if (volume.emptyDisk) {
      paths.set(volume.name, {
        kind: "emptyDisk",
        path: filePathForVolumeName(emptyDiskDir(layout), volume.name),
      });
    } else if (volume.cloudInitNoCloud) {
      const isoPath = isoFilePath(cloudInitDir(layout), DataSource.NoCloud, name, namespace);
      paths.set(volume.name, { kind: "cloudInitNoCloud", isoPath });
    } else if (volume.cloudInitConfigDrive) {
      const isoPath = isoFilePath(cloudInitDir(layout), DataSource.ConfigDrive, name, namespace);
      paths.set(volume.name, { kind: "cloudInitConfigDrive", isoPath });
    } else if (volume.persistentVolumeClaim || volume.dataVolume) {
      const kind = volume.persistentVolumeClaim ? "persistentVolumeClaim" : "dataVolume";
      paths.set(volume.name, { kind, ...claimPaths(layout, volume.name) });
    } else if (volume.ephemeral) {
      const overlayPath = ephemeralOverlayPath(layout, volume.name);
      paths.set(volume.name, { kind: "ephemeral", overlayPath, ...claimPaths(layout, volume.name) });
    } else if (volume.hostDisk) {
      const path = hostDiskImagePath(layout, volume.name, volume.hostDisk.path);
      paths.set(volume.name, { kind: "hostDisk", path });
    } else {
      const kind = CONFIG_DISK_KINDS.find((candidate) => volume[candidate]);
      if (kind) paths.set(volume.name, { kind, isoPath: configDiskPath(layout, kind, volume.name) });
    }
  });
  return paths;
}

export function launcherConverterContext(
  vmi: VirtualMachineInstance,
  layout: LauncherLayout,
  inputs: LauncherConverterInputs,
): ConverterContext {
  const uid = vmi.metadata?.uid ?? "";
  const { options } = inputs;
  const smbios = options?.VirtualMachineSMBios;
  return {
    allowEmulation: inputs.allowEmulation,
    hypervisorDeviceAvailable: inputs.hypervisorDeviceAvailable,
    emulatorPath: DefaultEmulatorPath,
    serialConsoleSocket: serialConsoleSocket(layout, uid),
    vncSocket: vncSocket(layout, uid),
    kernelBootDir: join(layout.containerDiskDir, KERNEL_BOOT_NAME),
    volumes: volumePaths(vmi, layout, inputs.containerDiskFormats),
    blockVolumes: inputs.blockVolumes,
    ...hotplugAndPermanentVolumes(vmi),
    hotplugDiskDir: hotplugDiskDir(layout),
    interfaces: inputs.interfaces,
    ...(smbios ? { smbios } : {}),
    memBalloonStatsPeriod: options?.MemBalloonStatsPeriod ?? 0,
    freePageReportingDisabled: options?.clusterConfig?.FreePageReportingDisabled ?? false,
    serialConsoleLogDisabled: options?.clusterConfig?.SerialConsoleLogDisabled ?? false,
  };
}

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
  cloudInitDir,
  emptyDiskDir,
  ephemeralDiskDataDir,
  serialConsoleSocket,
  vncSocket,
} from "../layout.js";
import { join } from "node:path";
import type { ConverterContext, InterfacePlumbing, VolumePaths } from "./converter/context.js";
import { DefaultEmulatorPath } from "./converter/context.js";

export interface LauncherConverterInputs {
  allowEmulation: boolean;
  /** /dev/kvm is usable by QEMU's user. */
  hypervisorDeviceAvailable: boolean;
  /** Each containerDisk image's format, by volume name. */
  containerDiskFormats: ReadonlyMap<string, string>;
  /** The host side of each interface, by interface name. */
  interfaces: ReadonlyMap<string, InterfacePlumbing>;
  options: VirtualMachineOptions | null;
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
        overlayPath: join(ephemeralDiskDataDir(layout), volume.name, "disk.qcow2"),
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
    interfaces: inputs.interfaces,
    ...(smbios ? { smbios } : {}),
    memBalloonStatsPeriod: options?.MemBalloonStatsPeriod ?? 0,
    freePageReportingDisabled: options?.clusterConfig?.FreePageReportingDisabled ?? false,
    serialConsoleLogDisabled: options?.clusterConfig?.SerialConsoleLogDisabled ?? false,
  };
}

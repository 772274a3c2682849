// Where a disk's data comes from (upstream converter.go Convert_v1_Volume_To_api_Disk and the
// conversion of each volume source): the file or device the launcher has for the disk's volume, in
// its format. The paths come from the context, which the launcher fills from its layout. Hotplugged
// volumes (upstream Convert_v1_Hotplug_Volume_To_api_Disk) are in the hotplug dir instead.
import { posix } from "node:path";
import type { Volume } from "../../../api/generated/v1.js";
import type { BackingStore, Disk, DiskDriver, DiskSource } from "../api/schema.js";
import type { ClaimPaths, ConverterContext, EphemeralPaths, VolumePaths } from "./context.js";
import { ConversionError } from "./errors.js";

export type DiskWithDriver = Disk & { driver: DiskDriver };

type SourceKind = VolumePaths["kind"];

/** The volume sources the converter knows, in the order upstream looks for them. */
const SOURCE_KINDS: readonly SourceKind[] = [
  "containerDisk",
  "cloudInitNoCloud",
  "cloudInitConfigDrive",
  "hostDisk",
  "persistentVolumeClaim",
  "dataVolume",
  "ephemeral",
  "emptyDisk",
  "configMap",
  "secret",
  "downwardAPI",
  "serviceAccount",
];

function sourceKindOf(volume: Volume): SourceKind | undefined {
  return SOURCE_KINDS.find((kind) => volume[kind] !== undefined && volume[kind] !== null);
}

function pathsFor<K extends SourceKind>(
  context: ConverterContext,
  volume: Volume,
  kind: K,
): Extract<VolumePaths, { kind: K }> {
  const paths = context.volumes.get(volume.name);
  const matches = (candidate: VolumePaths | undefined): candidate is Extract<VolumePaths, { kind: K }> =>
    candidate?.kind === kind;
  if (!matches(paths)) throw new ConversionError(`no disk info provided for volume ${volume.name}`);
  return paths;
}

/**
 * A claim's image: the device node of a Block claim, else the claim's disk.img. (Upstream also writes
 * the volume's name on a block source; libvirt ignores it and its schema refuses it, so it is left out.)
 */
function claimImage(
  context: ConverterContext,
  volumeName: string,
  paths: ClaimPaths | EphemeralPaths,
): { type: "block" | "file"; source: DiskSource } {
  if (context.blockVolumes.has(volumeName)) return { type: "block", source: { dev: paths.devicePath } };
  return { type: "file", source: { file: paths.imagePath } };
}

/** A writable qcow2 overlay the launcher created over a read-only image. */
function attachOverlay(disk: DiskWithDriver, overlayPath: string, backingStore: BackingStore): void {
  disk.type = "file";
  disk.driver.type = "qcow2";
  disk.driver.discard = "unmap";
  disk.source.file = overlayPath;
  disk.backingStore = backingStore;
}

/** A raw image; a disk of the guest's own (not an ISO) gets discard like any disk of the guest. */
function attachRaw(disk: DiskWithDriver, type: "block" | "file", source: DiskSource, discard: boolean): void {
  disk.type = type;
  disk.driver.type = "raw";
  if (discard) disk.driver.discard = "unmap";
  disk.source = source;
}

export function attachVolume(volume: Volume, context: ConverterContext, disk: DiskWithDriver): void {
  const kind = sourceKindOf(volume);
  if (kind === undefined) throw new ConversionError(`disk ${volume.name} references an unsupported source`);
  const paths = pathsFor(context, volume, kind);
  switch (paths.kind) {
    case "containerDisk":
      attachOverlay(disk, paths.overlayPath, {
        type: "file",
        format: { type: paths.imageFormat },
        source: { file: paths.imagePath },
      });
      break;
    case "ephemeral": {
      const base = claimImage(context, volume.name, paths);
      attachOverlay(disk, paths.overlayPath, {
        type: base.type,
        format: { type: "raw" },
        source: base.source,
      });
      break;
    }
    case "emptyDisk":
      disk.type = "file";
      disk.driver.type = "qcow2";
      disk.driver.discard = "unmap";
      disk.source.file = paths.path;
      break;
    case "persistentVolumeClaim":
    case "dataVolume": {
      const image = claimImage(context, volume.name, paths);
      attachRaw(disk, image.type, image.source, true);
      break;
    }
    case "hostDisk":
      attachRaw(disk, "file", { file: paths.path }, false);
      break;
    default:
      attachRaw(disk, "file", { file: paths.isoPath }, false);
  }
}

/** A hotplugged Filesystem claim's image (upstream GetHotplugFilesystemVolumePath). */
export function hotplugFilesystemVolumePath(hotplugDiskDir: string, volumeName: string): string {
  return posix.join(hotplugDiskDir, `${volumeName}.img`);
}

/** A hotplugged Block claim's device node (upstream GetHotplugBlockDeviceVolumePath). */
export function hotplugBlockDeviceVolumePath(hotplugDiskDir: string, volumeName: string): string {
  return posix.join(hotplugDiskDir, volumeName);
}

/**
 * A hotplugged claim as a raw disk: the device node virt-handler made for a Block claim, else the
 * disk.img it bind-mounted (upstream ConvertHotplugVolumeSourceToDisk without changed block tracking;
 * the CBT variant, a qcow2 overlay over the claim, is not ported since nothing here tracks changes).
 */
export function attachHotplugVolume(volume: Volume, context: ConverterContext, disk: DiskWithDriver): void {
  // A hostDisk stands for a Filesystem claim virt-handler rewrote (upstream ReplacePVCByHostDisk).
  if (!volume.hostDisk && !volume.persistentVolumeClaim && !volume.dataVolume) {
    throw new ConversionError(`hotplug disk ${volume.name} references an unsupported source`);
  }
  const { hotplugDiskDir } = context;
  if (context.blockVolumes.has(volume.name)) {
    attachRaw(disk, "block", { dev: hotplugBlockDeviceVolumePath(hotplugDiskDir, volume.name) }, true);
  } else {
    attachRaw(disk, "file", { file: hotplugFilesystemVolumePath(hotplugDiskDir, volume.name) }, true);
  }
}

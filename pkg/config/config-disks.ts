// Config volumes as disks (upstream pkg/config CreateConfigMapDisks and friends): the files virt-controller
// mounted for a configMap, secret, downwardAPI or serviceAccount volume become an ISO image the guest
// mounts. Only volumes a disk uses get one; QEMU's user owns it.
import { mkdir, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { VirtualMachineInstance, Volume } from "../api/generated/v1.js";
import { defaultIsoFromFilesFunc, type IsoFromFilesFunc } from "../cloud-init/iso.js";
import type { FileOwnership } from "../ephemeral-disk/ownership.js";
import { errorMessage } from "../util/error-message.js";
import {
  configDiskPath,
  configSourceDir,
  type ConfigDiskKind,
  type LauncherLayout,
} from "../util/launcher-layout.js";

/** The ISO volume label when the volume sets none (upstream's default). */
export const DefaultConfigVolumeLabel = "cfgdata";

export interface ConfigDiskOptions {
  layout: LauncherLayout;
  ownership: FileOwnership;
  isoFunc?: IsoFromFilesFunc;
}

/** In upstream's order, with its wording when one kind fails. */
const KINDS: ReadonlyArray<[ConfigDiskKind, string]> = [
  ["configMap", "creating config map disks failed"],
  ["secret", "creating secret disks failed"],
  ["downwardAPI", "creating DownwardAPI disks failed"],
  ["serviceAccount", "creating service account disk failed"],
];

export async function createConfigDisks(
  vmi: VirtualMachineInstance,
  options: ConfigDiskOptions,
): Promise<void> {
  for (const [kind, failure] of KINDS) {
    await createDisksOfKind(vmi, kind, options).catch((error: unknown) => {
      throw new Error(`${failure}: ${errorMessage(error)}`, { cause: error });
    });
  }
}

/** The label the volume asks for; a serviceAccount volume has no such field. */
function volumeLabel(volume: Volume, kind: ConfigDiskKind): string {
  const label = kind === "serviceAccount" ? undefined : volume[kind]?.volumeLabel;
  return label || DefaultConfigVolumeLabel;
}

async function createDisksOfKind(
  vmi: VirtualMachineInstance,
  kind: ConfigDiskKind,
  { layout, ownership, isoFunc = defaultIsoFromFilesFunc }: ConfigDiskOptions,
): Promise<void> {
  const volumes = new Map(
    (vmi.spec.volumes ?? []).filter((v) => v[kind] !== undefined).map((v) => [v.name, v]),
  );
  for (const disk of vmi.spec.domain.devices.disks ?? []) {
    const volume = volumes.get(disk.name);
    if (!volume) continue;
    const source = configSourceDir(layout, kind, volume.name);
    // Every entry, as upstream lists them: each file appears under its own name at the ISO's root.
    const graftPoints = (await readdir(source)).sort().map((name) => `${name}=${join(source, name)}`);
    const isoPath = configDiskPath(layout, kind, volume.name);
    await mkdir(dirname(isoPath), { recursive: true });
    await isoFunc(isoPath, volumeLabel(volume, kind), graftPoints);
    await ownership.setFileOwnership(isoPath);
  }
}

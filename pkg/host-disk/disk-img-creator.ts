// The sparse raw images of DiskOrCreate hostDisks (upstream pkg/host-disk DiskImgCreator). virt-handler
// creates them inside the launcher pod's mount namespace, reached as /proc/<pid>/root: the volume's
// directory is resolved as the pod would resolve it and then opened without following any symlink, so a
// pod cannot point the privileged handler at a node file. The image is QEMU's (uid/gid 107).
import { constants } from "node:fs";
import { lstat, open, statfs } from "node:fs/promises";
import { posix } from "node:path";
import type { HostDisk, VirtualMachineInstance } from "../api/generated/v1.js";
import type { EventRecorder } from "../controller/events.js";
import { Quantity } from "../defaults/quantity.js";
import { openNoFollow } from "../safepath/no-follow.js";
import { resolveInRoot } from "../safepath/relative-root.js";
import { NonRootUID } from "../util/constants.js";
import { errorMessage } from "../util/error-message.js";
import { DEFAULT_LAYOUT, pvcMountDir, type LauncherLayout } from "../util/launcher-layout.js";
import { HostDiskExistsOrCreate } from "./host-disk.js";

export const EventReasonToleratedSmallPV = "ToleratedSmallPV";

/** Free bytes for an unprivileged writer below `path`, less `reserve` (never below zero). */
export async function dirBytesAvailable(path: string, reserve: bigint): Promise<bigint> {
  const { bavail, bsize } = await statfs(path, { bigint: true });
  const available = bavail * bsize - reserve;
  return available > 0n ? available : 0n;
}

export interface DiskImgCreatorOptions {
  /** The launcher's root as virt-handler sees it (`/proc/<pid>/root`); trusted, unlike what is below. */
  mountRoot: string;
  /** developerConfiguration.pvcTolerateLessSpaceUpToPercent. */
  lessPVCSpaceToleration: number;
  /** developerConfiguration.minimumReservePVCBytes. */
  minimumPVCReserveBytes: number;
  recorder?: Pick<EventRecorder, "event">;
  /** Who gets the image: QEMU's user (107) unless told otherwise (tests). */
  owner?: { uid: number; gid: number };
  layout?: LauncherLayout;
  dirBytesAvailable?: typeof dirBytesAvailable;
}

export class DiskImgCreator {
  constructor(private readonly options: DiskImgCreatorOptions) {}

  async create(vmi: VirtualMachineInstance): Promise<void> {
    for (const volume of vmi.spec.volumes ?? []) {
      const hostDisk = volume.hostDisk;
      if (hostDisk?.type !== HostDiskExistsOrCreate || hostDisk.path === "") continue;
      await this.ensureImage(vmi, volume.name, hostDisk);
    }
  }

  private async ensureImage(vmi: VirtualMachineInstance, volumeName: string, hostDisk: HostDisk) {
    const layout = this.options.layout ?? DEFAULT_LAYOUT;
    const dir = await this.openVolumeDir(pvcMountDir(layout, volumeName)).catch((error: unknown) => {
      throw new Error(`Resolve diskdir : ${errorMessage(error)}`, { cause: error });
    });
    try {
      const diskName = posix.basename(hostDisk.path);
      const existing = await lstat(`${dir.procPath}/${diskName}`).catch((error: unknown) =>
        (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : Promise.reject(error),
      );
      if (existing?.isSymbolicLink())
        throw new Error(`Resolve diskPath :${diskName} in ${volumeName} is a symlink`);
      if (existing) return;
      const size = await this.imageSize(vmi, dir.procPath, hostDisk);
      await this.createSparseRaw(dir.procPath, diskName, size).catch((error: unknown) => {
        const fullPath = posix.join(pvcMountDir(layout, volumeName), diskName);
        throw new Error(
          `Couldn't create a sparse raw file for disk path: ${fullPath}, error: ${errorMessage(error)}`,
          { cause: error },
        );
      });
    } finally {
      await dir.close();
    }
  }

  /** The volume's directory, resolved inside the pod root and opened refusing symlinks. */
  private async openVolumeDir(pathInPod: string) {
    const { mountRoot } = this.options;
    const resolved = await resolveInRoot(mountRoot, pathInPod);
    const components = posix.relative(mountRoot, resolved).split("/").filter(Boolean);
    return openNoFollow(mountRoot, components, "directory");
  }

  /** The capacity asked for, or the space left when that is within the tolerated shortfall. */
  private async imageSize(vmi: VirtualMachineInstance, dir: string, hostDisk: HostDisk): Promise<bigint> {
    const { lessPVCSpaceToleration: toleration, minimumPVCReserveBytes } = this.options;
    const available = await (this.options.dirBytesAvailable ?? dirBytesAvailable)(
      dir,
      BigInt(minimumPVCReserveBytes),
    );
    const requested = Quantity.tryParse(hostDisk.capacity)?.value() ?? 0n;
    if (requested <= 0n)
      throw new Error(`hostDisk.capacity of ${hostDisk.path} must be set to create the disk image`);
    if (requested <= available) return requested;
    // Provisioners often hand out a little less than asked (filesystem overhead): tolerated up to a point.
    const tolerated = (requested * BigInt(100 - toleration)) / 100n;
    if (tolerated > available)
      throw new Error(
        `unable to create ${hostDisk.path}, not enough space, demanded size ${requested} B is bigger than ` +
          `available space ${available} B, also after taking ${toleration} % toleration into account`,
      );
    const message =
      `PV size too small: expected ${requested} B, found ${available} B. ` +
      `Using it anyway, it is within ${toleration} % toleration`;
    this.options.recorder?.event(vmi, "Normal", EventReasonToleratedSmallPV, message);
    return available;
  }

  /** A file of `size` bytes with no data blocks but its last byte; never replaces what is there. */
  private async createSparseRaw(dir: string, diskName: string, size: bigint): Promise<void> {
    const { uid, gid } = this.options.owner ?? { uid: NonRootUID, gid: NonRootUID };
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const file = await open(`${dir}/${diskName}`, flags, 0o666);
    try {
      await file.write(Buffer.alloc(1), 0, 1, Number(size - 1n));
      await file.chown(uid, gid);
    } finally {
      await file.close();
    }
  }
}

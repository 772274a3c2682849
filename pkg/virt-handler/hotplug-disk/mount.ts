// virt-handler's hotplug volume mounter (upstream pkg/virt-handler/hotplug-disk/mount.go). A hotplugged
// claim is mounted by its attachment pod (`hp-volume-*`, container `hotplug-disk`, whose container-disk
// process listens on `/path/hp.sock` in the pod's `hotplug-disks` emptyDir): a Filesystem claim at
// `/<volume>`, a Block claim as a device under `/path/<volume>/`. The handler hands it to the launcher
// pod's own `hotplug-disks` emptyDir, which the launcher mounts HostToContainer: `disk.img` of a
// Filesystem claim is bind-mounted (in the node's mount namespace) onto `<volume>.img`, a Block claim's
// device gets a node `<volume>` with the same major:minor. Both belong to qemu (107) afterwards, as
// upstream's ownership manager leaves them. A record of every target is written before it is made, so a
// restarted handler undoes what an earlier one did.
//
// Where this differs from upstream: upstream reads a Block claim's device from the attachment pod's
// emptyDir on the node (containerd makes the device node there). The local node agent bind-mounts the
// device into the container instead, so the device is looked up through the attachment container's root.
// The node agent sets no device cgroup rules, so there is no allow/deny rule to update either.
import { execFile } from "node:child_process";
import { chown, lstat, readdir, rm, stat } from "node:fs/promises";
import { posix } from "node:path";
import { promisify } from "node:util";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { openNoFollow, type SafePath } from "../../safepath/no-follow.js";
import { resolveInRoot } from "../../safepath/relative-root.js";
import { NonRootUID } from "../../util/constants.js";
import { isPVCBlock } from "../../storage/types/pvc.js";
import { isHotplugVolume } from "../../storage/types/volume.js";
import { MountRecords } from "../container-disk/mount-record.js";
import type { IsolationResult } from "../isolation/detector.js";
import { mountOf, nodePathOf, readMountInfoOf } from "../isolation/mount-info.js";
import {
  ensureEmptyFile,
  isMountPoint,
  sameFile,
  statOnNode,
  type FileIdentity,
  type NodeMounterOptions,
} from "../isolation/node-files.js";
import { UID_PATTERN } from "../launcher-clients.js";

export interface HotplugVolumeMounter {
  /** Hands every hotplug volume of the VMI's status that is not handed over yet to the launcher pod. */
  mount(vmi: VirtualMachineInstance): Promise<void>;
  /** Takes back the volumes that are no longer in the VMI's spec. */
  unmount(vmi: VirtualMachineInstance): Promise<void>;
  /** Takes back everything the record holds for the VMI (a finished or deleted VMI). */
  unmountAll(vmi: VirtualMachineInstance): Promise<void>;
  /** Whether the volume is in the launcher pod. */
  isMounted(vmi: VirtualMachineInstance, volume: string): Promise<boolean>;
}

export interface HotplugMounterOptions extends NodeMounterOptions {
  /** Makes a block device node (`mknod <path> b <major> <minor>` with the mode). */
  mknod?: (path: string, mode: number, major: number, minor: number) => Promise<void>;
  /** The owner the launcher's QEMU needs; upstream's qemu user. */
  owner?: number;
}

/** The hotplug-disks emptyDir in a pod's kubelet dir (upstream hotplugDisksKubeletVolumePath). */
export const HOTPLUG_DISKS_DIR = "volumes/kubernetes.io~empty-dir/hotplug-disks";
/** Where the attachment pod mounts that emptyDir, and its container-disk socket in it. */
const ATTACHMENT_MOUNT = "/path";
const ATTACHMENT_SOCKET = "hp.sock";
/** The disk image inside a Filesystem claim. */
const DISK_IMAGE = "disk.img";

/** Whether the status says the claim is a Block one (upstream isBlockVolume, migrations aside). */
function isBlockVolume(vmi: VirtualMachineInstance, volume: string): boolean {
  const status = (vmi.status?.volumeStatus ?? []).find((entry) => entry.name === volume);
  return isPVCBlock(status?.persistentVolumeClaimInfo?.volumeMode);
}

const defaultMknod = async (path: string, mode: number, major: number, minor: number) => {
  const octal = (mode & 0o7777).toString(8).padStart(4, "0");
  await promisify(execFile)("mknod", ["-m", octal, path, "b", String(major), String(minor)], { env: {} });
};

/** major and minor of a device number as glibc's gnu_dev_major/minor unpack it. */
function splitDev(rdev: number): { major: number; minor: number } {
  const value = BigInt(rdev);
  return {
    major: Number(((value >> 8n) & 0xfffn) | ((value >> 32n) & ~0xfffn)),
    minor: Number((value & 0xffn) | ((value >> 12n) & ~0xffn)),
  };
}

export class NodeHotplugVolumeMounter implements HotplugVolumeMounter {
  private readonly records: MountRecords;
  private readonly procDir: string;
  private readonly nodePid: number;
  private readonly owner: number;
  private readonly mknod: NonNullable<HotplugMounterOptions["mknod"]>;

  constructor(private readonly options: HotplugMounterOptions) {
    this.records = new MountRecords(options.recordDir);
    this.procDir = options.procDir ?? "/proc";
    this.nodePid = options.nodePid ?? 1;
    this.owner = options.owner ?? NonRootUID;
    this.mknod = options.mknod ?? defaultMknod;
  }

  async mount(vmi: VirtualMachineInstance): Promise<void> {
    for (const status of vmi.status?.volumeStatus ?? []) {
      const sourceUID = status.hotplugVolume?.attachPodUID ?? "";
      if (sourceUID === "") continue;
      try {
        if (isBlockVolume(vmi, status.name)) await this.mountBlock(vmi, status.name, sourceUID);
        else await this.mountFilesystem(vmi, status.name, sourceUID);
      } catch (error) {
        const mode = isBlockVolume(vmi, status.name) ? "block" : "filesystem";
        throw new HotplugMountError(
          `failed to mount ${mode} hotplug volume ${status.name}: ${(error as Error).message}`,
          error,
        );
      }
    }
  }

  async isMounted(vmi: VirtualMachineInstance, volume: string): Promise<boolean> {
    const launcherUID = await this.launcherUID(vmi);
    if (!launcherUID) throw new Error("Unable to determine virt-launcher UID");
    const dir = await this.launcherDir(launcherUID);
    if (!dir) return false;
    try {
      if (isBlockVolume(vmi, volume)) return (await this.entryKind(dir, volume)) === "block";
      return (await this.mountedNodeTarget(this.launcherDirPath(launcherUID), `${volume}.img`)) !== undefined;
    } finally {
      await dir.close();
    }
  }

  async unmount(vmi: VirtualMachineInstance): Promise<void> {
    const uid = vmi.metadata?.uid ?? "";
    const record = uid === "" ? undefined : await this.records.get(uid);
    if (!record || record.mountTargetEntries.length === 0) return;
    const launcherUID = await this.launcherUID(vmi);
    if (!launcherUID || !(await this.launcherDirExists(launcherUID))) {
      // The launcher pod's dir is gone, and every mount in it with it.
      await this.records.delete(uid);
      return;
    }
    const current = new Set(
      (vmi.spec.volumes ?? [])
        .filter(isHotplugVolume)
        .map((volume) => this.targetPath(launcherUID, volume.name, isBlockVolume(vmi, volume.name))),
    );
    const kept = [];
    for (const entry of record.mountTargetEntries) {
      if (current.has(entry.targetFile)) kept.push(entry);
      else await this.release(entry.targetFile);
    }
    if (kept.length > 0) await this.records.set(uid, { mountTargetEntries: kept });
    else await this.records.delete(uid);
  }

  async unmountAll(vmi: VirtualMachineInstance): Promise<void> {
    const uid = vmi.metadata?.uid ?? "";
    const record = uid === "" ? undefined : await this.records.get(uid);
    if (!record) return;
    for (const entry of record.mountTargetEntries) {
      // Best effort, as upstream: one stuck target does not keep the others.
      await this.release(entry.targetFile).catch(() => undefined);
    }
    await this.records.delete(uid);
  }

  /** The one active pod of the VMI whose hotplug-disks dir is on this node (upstream findVirtlauncherUID). */
  private async launcherUID(vmi: VirtualMachineInstance): Promise<string | undefined> {
    const found = [];
    for (const uid of Object.keys(vmi.status?.activePods ?? {})) {
      if (await this.launcherDirExists(uid)) found.push(uid);
    }
    return found.length === 1 ? found[0] : undefined;
  }

  private async launcherDirExists(uid: string): Promise<boolean> {
    const dir = await this.launcherDir(uid);
    await dir?.close();
    return dir !== undefined;
  }

  private async launcherDir(uid: string): Promise<SafePath | undefined> {
    if (!UID_PATTERN.test(uid)) return undefined;
    return openNoFollow(this.options.podsDir, [uid, ...HOTPLUG_DISKS_DIR.split("/")], "directory").catch(
      () => undefined,
    );
  }

  /** The record's name of a target: the path under the pods dir, as the handler sees it. */
  private targetPath(launcherUID: string, volume: string, block: boolean): string {
    return posix.join(this.launcherDirPath(launcherUID), block ? volume : `${volume}.img`);
  }

  private async addToRecord(vmi: VirtualMachineInstance, targetFile: string): Promise<void> {
    const uid = vmi.metadata?.uid ?? "";
    const record = (await this.records.get(uid)) ?? { mountTargetEntries: [] };
    if (record.mountTargetEntries.some((entry) => entry.targetFile === targetFile)) return;
    record.mountTargetEntries.push({ targetFile });
    await this.records.set(uid, record);
  }

  private async mountBlock(vmi: VirtualMachineInstance, volume: string, sourceUID: string): Promise<void> {
    const launcherUID = await this.launcherUID(vmi);
    // Not the node the launcher runs on.
    if (!launcherUID) return;
    const dir = await this.launcherDir(launcherUID);
    if (!dir) throw new Error(`the hotplug-disks volume of pod ${launcherUID} is missing`);
    try {
      const kind = await this.entryKind(dir, volume);
      if (kind === "missing") {
        const source = await this.sourceDevice(sourceUID, volume);
        await this.addToRecord(vmi, this.targetPath(launcherUID, volume, true));
        await this.mknod(
          `/proc/${process.pid}/fd/${fdOf(dir)}/${volume}`,
          source.mode,
          source.major,
          source.minor,
        );
      } else if (kind !== "block") {
        throw new Error(`target device ${volume} exists but it is not a block device`);
      }
      await chown(posix.join(dir.procPath, volume), this.owner, this.owner);
    } finally {
      await dir.close();
    }
  }

  /** The one block device under `/path/<volume>/` in the attachment container (upstream statSourceDevice). */
  private async sourceDevice(
    sourceUID: string,
    volume: string,
  ): Promise<{ major: number; minor: number; mode: number }> {
    const container = await this.attachmentContainer(sourceUID);
    const dir = await resolveInRoot(container.rootFs, posix.join(ATTACHMENT_MOUNT, volume));
    for (const name of await readdir(dir)) {
      const info = await lstat(posix.join(dir, name));
      if (!info.isBlockDevice()) continue;
      return { ...splitDev(info.rdev), mode: info.mode & 0o777 };
    }
    throw new Error(`no device in ${posix.join(ATTACHMENT_MOUNT, volume)} of pod ${sourceUID}`);
  }

  private async mountFilesystem(
    vmi: VirtualMachineInstance,
    volume: string,
    sourceUID: string,
  ): Promise<void> {
    const launcherUID = await this.launcherUID(vmi);
    if (!launcherUID) return;
    const name = `${volume}.img`;
    await this.ensureFileTarget(launcherUID, name);
    if (!(await this.mountedNodeTarget(this.launcherDirPath(launcherUID), name))) {
      const source = await this.sourceImage(sourceUID, volume);
      // Until the attachment pod shows the claim there is nothing to mount yet.
      if (!source) return;
      const nodeTarget = await this.nodeTarget(this.launcherDirPath(launcherUID), name);
      await this.addToRecord(vmi, this.targetPath(launcherUID, volume, false));
      await this.options.run(["mount", "-o", "bind", source.nodePath, nodeTarget]);
      const mounted = await statOnNode(this.procDir, this.nodePid, nodeTarget);
      if (!mounted || !sameFile(mounted, source.identity)) {
        await this.options.run(["umount", nodeTarget]);
        throw new Error(`the disk image of ${volume} changed while it was mounted`);
      }
    }
    const target = await this.openTarget(launcherUID, name);
    try {
      await chown(target.procPath, this.owner, this.owner);
    } finally {
      await target.close();
    }
  }

  /**
   * `disk.img` on the claim's mount in the attachment container, named as the node sees it; undefined while
   * the container or its mount of the claim cannot be found yet (upstream swallows that, and retries).
   */
  private async sourceImage(
    sourceUID: string,
    volume: string,
  ): Promise<{ nodePath: string; identity: FileIdentity } | undefined> {
    const container = await this.attachmentContainer(sourceUID).catch(() => undefined);
    if (!container) return undefined;
    const [containerView, nodeView] = await Promise.all([
      readMountInfoOf(this.procDir, container.pid),
      readMountInfoOf(this.procDir, this.nodePid),
    ]);
    // upstream LookupFindmntInfoByVolume: the container's mount whose target is named after the volume.
    const mount = [...containerView].reverse().find((entry) => posix.basename(entry.mountPoint) === volume);
    if (!mount) return undefined;
    const inContainer = posix.join(mount.mountPoint, DISK_IMAGE);
    const resolved = await resolveInRoot(container.rootFs, inContainer);
    const inRoot = `/${posix.relative(container.rootFs, resolved)}`;
    if (mountOf(containerView, inRoot) !== mountOf(containerView, mount.mountPoint)) {
      throw new Error(`the disk image of ${volume} is not on its claim's mount`);
    }
    const info = await stat(resolved).catch(() => undefined);
    if (!info) throw new SourceImageMissing(`${inContainer} not found in pod ${sourceUID}`);
    if (!info.isFile()) throw new Error(`${inContainer} in pod ${sourceUID} is not a plain file`);
    const nodePath = nodePathOf(containerView, nodeView, inRoot);
    const onNode = nodePath ? await statOnNode(this.procDir, this.nodePid, nodePath) : undefined;
    if (!nodePath || !onNode || !sameFile(onNode, info)) {
      throw new Error(`the node does not show the disk image of ${volume}`);
    }
    return { nodePath, identity: { dev: info.dev, ino: info.ino } };
  }

  private attachmentContainer(sourceUID: string): Promise<IsolationResult> {
    if (!UID_PATTERN.test(sourceUID)) throw new Error(`invalid attachment pod UID ${sourceUID}`);
    const socket = posix.join(this.options.podsDir, sourceUID, HOTPLUG_DISKS_DIR, ATTACHMENT_SOCKET);
    return this.options.detector.detectForSocket(socket, posix.join(ATTACHMENT_MOUNT, ATTACHMENT_SOCKET));
  }

  /** An empty file to mount onto, created without following any symlink. */
  private async ensureFileTarget(launcherUID: string, name: string): Promise<void> {
    const dir = await this.launcherDir(launcherUID);
    if (!dir) throw new Error(`the hotplug-disks volume of pod ${launcherUID} is missing`);
    try {
      await ensureEmptyFile(dir, name);
    } finally {
      await dir.close();
    }
  }

  private async openTarget(launcherUID: string, name: string): Promise<SafePath> {
    return openNoFollow(this.options.podsDir, [launcherUID, ...HOTPLUG_DISKS_DIR.split("/"), name], "file");
  }

  /** The target as the node names it, through its directory (the target may be a mount already). */
  /** `name` in `dir` (a path under the pods dir, as the handler sees it) as the node names it. */
  private async nodeTarget(dir: string, name: string): Promise<string> {
    const [ownView, nodeView] = await Promise.all([
      readMountInfoOf(this.procDir, "self"),
      readMountInfoOf(this.procDir, this.nodePid),
    ]);
    const nodeDir = nodePathOf(ownView, nodeView, dir);
    if (!nodeDir) throw new Error(`the node does not show ${dir}`);
    return posix.join(nodeDir, name);
  }

  /** The node's name of `name` in `dir` when the node shows a mount there; undefined otherwise. */
  private async mountedNodeTarget(dir: string, name: string): Promise<string | undefined> {
    const nodeTarget = await this.nodeTarget(dir, name).catch(() => undefined);
    if (!nodeTarget) return undefined;
    return isMountPoint(await readMountInfoOf(this.procDir, this.nodePid), nodeTarget)
      ? nodeTarget
      : undefined;
  }

  private launcherDirPath(launcherUID: string): string {
    return posix.join(this.options.podsDir, launcherUID, HOTPLUG_DISKS_DIR);
  }

  /** Unmounts (Filesystem) or removes (Block) one recorded target, then removes the target file. */
  private async release(targetFile: string): Promise<void> {
    const relative = posix.relative(this.options.podsDir, targetFile);
    const components = relative.split("/");
    const name = components.pop() as string;
    if (relative.startsWith("..") || components.length === 0) throw new Error(`foreign target ${targetFile}`);
    const dir = await openNoFollow(this.options.podsDir, components, "directory").catch(() => undefined);
    if (!dir) return;
    try {
      const kind = await this.entryKind(dir, name);
      if (kind === "missing") return;
      const mounted =
        kind === "file" &&
        (await this.mountedNodeTarget(posix.join(this.options.podsDir, ...components), name));
      if (mounted) await this.options.run(["umount", mounted]);
      await rm(posix.join(dir.procPath, name), { force: true });
    } finally {
      await dir.close();
    }
  }

  private async entryKind(dir: SafePath, name: string): Promise<"missing" | "block" | "file" | "other"> {
    const info = await lstat(posix.join(dir.procPath, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!info) return "missing";
    return info.isBlockDevice() ? "block" : info.isFile() ? "file" : "other";
  }
}

/** A Filesystem claim without its disk image: reported as upstream's HotplugFailed event, not retried hot. */
export class SourceImageMissing extends Error {}

/** A failed hand-over of one volume; `cause` tells whether the image was merely missing. */
export class HotplugMountError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }

  get imageMissing(): boolean {
    return this.cause instanceof SourceImageMissing;
  }
}

function fdOf(path: SafePath): string {
  return path.procPath.slice("/proc/self/fd/".length);
}

// virt-handler's containerDisk mounter (upstream pkg/virt-handler/container-disk/mount.go). Each
// containerDisk volume of a VMI has a container in the launcher pod whose root holds the image under
// /disk, and whose container-disk process listens on `disk_<i>.sock` in the pod's `container-disks`
// emptyDir. The handler finds that container by the socket, picks the image in its root, and bind-mounts
// it read-only onto `disk_<i>.img` in the same emptyDir, in the node's mount namespace (upstream's
// `virt-chroot --mount /proc/1/ns/mnt mount -o ro,bind`); the launcher, whose mount of the emptyDir is
// HostToContainer, sees it there. Every path is named as the node sees it through mountinfo, and checked
// to be the very file found through the pod before and after mounting.
import { readdir, stat } from "node:fs/promises";
import { posix } from "node:path";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { diskTargetName } from "../../container-disk/container-disk.js";
import { resolveInRoot } from "../../safepath/relative-root.js";
import { mountOf, nodePathOf, readMountInfoOf } from "../isolation/mount-info.js";
import {
  ensureEmptyFile,
  isMountPoint,
  sameFile,
  statOnNode,
  type FileIdentity,
  type NodeMounterOptions,
} from "../isolation/node-files.js";
import { activePodUID, openPodFile } from "../launcher-clients.js";
import { MountRecords, type MountRecord } from "./mount-record.js";

export interface ContainerDiskMounter {
  /** Mounts every containerDisk of the VMI that is not mounted yet; throws while a disk container is not ready. */
  mountAndVerify(vmi: VirtualMachineInstance): Promise<void>;
  /** Undoes what the record says was mounted for the VMI, then forgets it. */
  unmount(vmi: VirtualMachineInstance): Promise<void>;
}

export type { NodeMountCommand } from "../isolation/node-files.js";

export interface MounterOptions extends NodeMounterOptions {
  host: string;
  /** The disk containers' view of the ephemeral disk dir (upstream's default). */
  ephemeralDiskDir?: string;
}

const CONTAINER_DISKS_DIR = "volumes/kubernetes.io~empty-dir/container-disks";
/** Where a containerDisk image keeps its disk when the volume names no path (upstream DiskSourceFallbackPath). */
const DISK_SOURCE_FALLBACK_PATH = "/disk";

function containerDiskIndexes(
  vmi: VirtualMachineInstance,
): Array<{ index: number; name: string; path?: string }> {
  return (vmi.spec.volumes ?? []).flatMap((volume, index) =>
    volume.containerDisk
      ? [
          {
            index,
            name: volume.name,
            ...(volume.containerDisk.path ? { path: volume.containerDisk.path } : {}),
          },
        ]
      : [],
  );
}

export class NodeContainerDiskMounter implements ContainerDiskMounter {
  private readonly records: MountRecords;
  private readonly procDir: string;
  private readonly nodePid: number;

  constructor(private readonly options: MounterOptions) {
    this.records = new MountRecords(options.recordDir);
    this.procDir = options.procDir ?? "/proc";
    this.nodePid = options.nodePid ?? 1;
  }

  async mountAndVerify(vmi: VirtualMachineInstance): Promise<void> {
    const disks = containerDiskIndexes(vmi);
    if (disks.length === 0) return;
    const uid = vmi.metadata?.uid ?? "";
    const podUID = await activePodUID(vmi, this.options.host, this.options.podsDir);
    if (!podUID) throw new Error(`no launcher pod of the VMI is active on ${this.options.host}`);
    const diskDir = posix.join(this.options.podsDir, podUID, CONTAINER_DISKS_DIR);
    const [ownView, nodeView] = await Promise.all([
      readMountInfoOf(this.procDir, "self"),
      readMountInfoOf(this.procDir, this.nodePid),
    ]);
    const targets = [];
    for (const disk of disks) {
      const target = await this.ensureTarget(podUID, disk.index);
      // Through the directory: the target itself may already be a mount of the image.
      const nodeDir = nodePathOf(ownView, nodeView, diskDir);
      if (!nodeDir) throw new Error(`the node does not show the containerDisk target of ${disk.name}`);
      const nodeTarget = posix.join(nodeDir, target.name);
      targets.push({ disk, target, nodeTarget, socket: posix.join(diskDir, `disk_${disk.index}.sock`) });
    }
    const record: MountRecord = {
      mountTargetEntries: targets.map((t) => ({ targetFile: t.nodeTarget, socketFile: t.socket })),
    };
    await this.records.set(uid, record);
    for (const { disk, target, nodeTarget, socket } of targets) {
      if (isMountPoint(nodeView, nodeTarget)) continue;
      const nodeOwnTarget = await statOnNode(this.procDir, this.nodePid, nodeTarget);
      if (!nodeOwnTarget || !sameFile(nodeOwnTarget, target.identity)) {
        throw new Error(`the node's ${nodeTarget} is not the containerDisk target the pod holds`);
      }
      const source = await this.findImage(vmi, disk, socket);
      await this.options.run(["mount", "-o", "ro,bind", source.nodePath, nodeTarget]);
      const mounted = await statOnNode(this.procDir, this.nodePid, nodeTarget);
      if (!mounted || !sameFile(mounted, source.identity)) {
        await this.options.run(["umount", nodeTarget]);
        throw new Error(`the image mounted for containerDisk ${disk.name} changed while it was mounted`);
      }
    }
  }

  async unmount(vmi: VirtualMachineInstance): Promise<void> {
    const uid = vmi.metadata?.uid ?? "";
    if (uid === "") return;
    const record = await this.records.get(uid);
    if (!record) return;
    const nodeView = await readMountInfoOf(this.procDir, this.nodePid);
    for (const entry of record.mountTargetEntries) {
      if (isMountPoint(nodeView, entry.targetFile)) await this.options.run(["umount", entry.targetFile]);
    }
    await this.records.delete(uid);
  }

  /** `disk_<i>.img` in the pod's container-disks dir, created when missing, never through a symlink. */
  private async ensureTarget(
    podUID: string,
    index: number,
  ): Promise<{ name: string; identity: FileIdentity }> {
    const name = diskTargetName(index);
    const dir = await openPodFile(this.options.podsDir, podUID, CONTAINER_DISKS_DIR, "directory");
    if (!dir) throw new Error(`the container-disks volume of pod ${podUID} is missing`);
    try {
      await ensureEmptyFile(dir, name);
    } finally {
      await dir.close();
    }
    const file = await openPodFile(this.options.podsDir, podUID, `${CONTAINER_DISKS_DIR}/${name}`, "file");
    if (!file) throw new Error(`the containerDisk target ${name} of pod ${podUID} is not a plain file`);
    try {
      const { dev, ino } = await stat(file.procPath);
      return { name, identity: { dev, ino } };
    } finally {
      await file.close();
    }
  }

  /** The image in the disk container's root, named as the node sees it. */
  private async findImage(
    vmi: VirtualMachineInstance,
    disk: { index: number; name: string; path?: string },
    socket: string,
  ): Promise<{ nodePath: string; identity: FileIdentity }> {
    const uid = vmi.metadata?.uid ?? "";
    const ephemeral = this.options.ephemeralDiskDir ?? "/var/run/kubevirt-ephemeral-disks";
    const socketInPod = posix.join(ephemeral, "container-disk-data", uid, `disk_${disk.index}.sock`);
    const container = await this.options.detector
      .detectForSocket(socket, socketInPod)
      .catch((error: unknown) => {
        throw new Error(`containerdisk ${disk.name} not yet ready: ${(error as Error).message}`, {
          cause: error,
        });
      });
    const resolved = await this.imageIn(container.rootFs, disk);
    const inRoot = posix.relative(container.rootFs, resolved);
    const [containerView, nodeView] = await Promise.all([
      readMountInfoOf(this.procDir, container.pid),
      readMountInfoOf(this.procDir, this.nodePid),
    ]);
    // The image must lie on the container's root filesystem, which the node mounted for it.
    if (mountOf(containerView, `/${inRoot}`)?.mountPoint !== "/") {
      throw new Error(`the image of containerDisk ${disk.name} is not on the container's root filesystem`);
    }
    const nodePath = nodePathOf(containerView, nodeView, `/${inRoot}`);
    const { dev, ino, isFile } = await stat(resolved).then((s) => ({ ...s, isFile: s.isFile() }));
    const onNode = nodePath ? await statOnNode(this.procDir, this.nodePid, nodePath) : undefined;
    if (!isFile || !nodePath || !onNode || !sameFile(onNode, { dev, ino })) {
      throw new Error(`failed to find a sourceFile in containerDisk ${disk.name}: the node does not show it`);
    }
    return { nodePath, identity: { dev, ino } };
  }

  /** The configured path, or the one file under /disk (upstream GetImage), resolved inside the root. */
  private async imageIn(rootFs: string, disk: { name: string; path?: string }): Promise<string> {
    if (disk.path) return resolveInRoot(rootFs, disk.path);
    const dir = await resolveInRoot(rootFs, DISK_SOURCE_FALLBACK_PATH);
    const files = await readdir(dir);
    if (files.length === 0)
      throw new Error(`no file found in folder ${DISK_SOURCE_FALLBACK_PATH}, no disk present`);
    if (files.length > 1)
      throw new Error(
        `more than one file found in folder ${DISK_SOURCE_FALLBACK_PATH}, only one disk is allowed`,
      );
    return resolveInRoot(rootFs, posix.join(DISK_SOURCE_FALLBACK_PATH, files[0] as string));
  }
}

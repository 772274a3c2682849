// What both of virt-handler's mounters (containerDisk and hotplug volumes) ask of files they hand to a
// launcher pod: a file's identity, whether the node shows a mount at a path, and an empty file to mount
// onto, made in a directory opened without following symlinks.
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { posix } from "node:path";
import type { SafePath } from "../../safepath/no-follow.js";
import type { IsolationResult } from "./detector.js";
import type { MountInfoEntry } from "./mount-info.js";

/** Runs a command in the node's mount namespace (upstream virt-chroot --mount /proc/1/ns/mnt). */
export type NodeMountCommand = (args: string[]) => Promise<void>;

/** What a mounter of files into launcher pods needs to know about the node. */
export interface NodeMounterOptions {
  /** The kubelet pods dir as virt-handler sees it. */
  podsDir: string;
  /** Where the mount records live (`<handler private dir>/<kind>-mount-state`). */
  recordDir: string;
  detector: { detectForSocket(socketPath: string, pathInPod: string): Promise<IsolationResult> };
  run: NodeMountCommand;
  /** The node's /proc (hostPID). */
  procDir?: string;
  /** A process in the node's mount namespace and root: upstream's /proc/1 (the node's init), the default. */
  nodePid?: number;
}

/** A file as the kernel names it: checked before and after a mount to be the very file meant. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export const sameFile = (a: FileIdentity, b: FileIdentity): boolean => a.dev === b.dev && a.ino === b.ino;

/** The identity of `nodePath` as the node sees it (through a node process's root), if it exists. */
export function statOnNode(
  procDir: string,
  nodePid: number,
  nodePath: string,
): Promise<FileIdentity | undefined> {
  return stat(posix.join(procDir, String(nodePid), "root", nodePath)).then(
    ({ dev, ino }) => ({ dev, ino }),
    () => undefined,
  );
}

export function isMountPoint(view: readonly MountInfoEntry[], file: string): boolean {
  return view.some((entry) => entry.mountPoint === file);
}

/** Creates `name` in `dir` as an empty file unless it exists; never through a symlink. */
export async function ensureEmptyFile(dir: SafePath, name: string): Promise<void> {
  const flags = constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_WRONLY;
  await open(posix.join(dir.procPath, name), flags, 0o644).then(
    (handle) => handle.close(),
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
}

import { chmod, lchown, lstat, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { FsGroupOwnership } from "../pod-runtime.js";

// kubelet's SetVolumeOwnership for pod.spec.securityContext.fsGroup: every file below the volume's
// directory gets group fsGroup and group read/write (read only for a read-only volume), directories also
// group execute and setgid so new files inherit the group. Symlinks get their group but no chmod (that
// would change their target). OnRootMismatch skips the walk when the root already fits.

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** Whether the volume's root lacks what the walk would give it (kubelet's requiresPermissionChange). */
export async function requiresPermissionChange(
  root: string,
  gid: number,
  readOnly: boolean,
): Promise<boolean> {
  const info = await stat(root).catch(() => undefined);
  if (!info || info.gid !== gid || !info.isDirectory()) return true;
  const wanted = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (info.mode & wanted) !== wanted || (info.mode & SETGID) === 0;
}

async function changeOne(file: string, gid: number, readOnly: boolean): Promise<boolean> {
  const info = await lstat(file);
  await lchown(file, info.uid, gid);
  if (info.isSymbolicLink()) return false;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (info.isDirectory()) mask |= SETGID | EXEC_MASK;
  await chmod(file, (info.mode & 0o7777) | mask);
  return info.isDirectory();
}

async function walk(file: string, gid: number, readOnly: boolean): Promise<void> {
  if (!(await changeOne(file, gid, readOnly))) return;
  for (const entry of await readdir(file)) await walk(path.join(file, entry), gid, readOnly);
}

export async function setVolumeOwnership(
  dir: string,
  ownership: FsGroupOwnership,
  readOnly: boolean,
): Promise<void> {
  if (
    ownership.changePolicy === "OnRootMismatch" &&
    !(await requiresPermissionChange(dir, ownership.gid, readOnly))
  )
    return;
  await walk(dir, ownership.gid, readOnly);
}

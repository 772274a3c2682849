// Which user libvirtd and QEMU run as. The launcher starts libvirtd in session mode as its own
// user when it is not root (upstream's non-root launcher, uid 107). A launcher that is root (our
// node agent runs containers as root unless told otherwise) still keeps QEMU unprivileged: it
// starts libvirtd as `--libvirt-uid` (107, upstream's NonRootUID) and hands it the files it opens.
import type { FileOwnership } from "../../ephemeral-disk/ownership.js";
import { keepOwnership, ownershipFor } from "../../ephemeral-disk/ownership.js";

/** Upstream's unprivileged "qemu" user. */
export const NON_ROOT_UID = 107;

export interface QemuIdentity {
  uid: number;
  gid: number;
  /** The launcher is root and libvirtd must be started as `uid`. */
  switchUser: boolean;
  ownership: FileOwnership;
}

export function qemuIdentity(
  launcherUid: number,
  launcherGid: number,
  libvirtUid = NON_ROOT_UID,
): QemuIdentity {
  if (launcherUid !== 0) {
    return { uid: launcherUid, gid: launcherGid, switchUser: false, ownership: keepOwnership };
  }
  if (libvirtUid === 0) throw new Error("libvirtd runs in session mode and cannot run as root");
  return {
    uid: libvirtUid,
    gid: libvirtUid,
    switchUser: true,
    ownership: ownershipFor(libvirtUid, libvirtUid),
  };
}

function hasName(file: string, name: string): boolean {
  return file.split("\n").some((line) => line.split(":")[0] === name);
}

/** Upstream's user name, unless the file already uses it for someone else. */
function entryName(file: string): string {
  return hasName(file, "qemu") ? "kubevirt-qemu" : "qemu";
}

/** Whether a passwd file has an entry for `uid`. */
export function hasPasswdEntry(passwd: string, uid: number): boolean {
  return passwd.split("\n").some((line) => line.split(":")[2] === String(uid));
}

/** /etc/passwd with an entry for `uid` added when it has none (libvirtd looks its user up and
 * refuses to run without one). */
export function withPasswdEntry(passwd: string, uid: number, gid: number, home: string): string {
  if (hasPasswdEntry(passwd, uid)) return passwd;
  const line = `${entryName(passwd)}:x:${uid}:${gid}:qemu user for virt-launcher:${home}:/sbin/nologin\n`;
  return terminated(passwd) + line;
}

/** /etc/group with a group for `gid` added when it has none. */
export function withGroupEntry(group: string, gid: number): string {
  if (group.split("\n").some((line) => line.split(":")[2] === String(gid))) return group;
  return terminated(group) + `${entryName(group)}:x:${gid}:\n`;
}

function terminated(file: string): string {
  return file === "" || file.endsWith("\n") ? file : file + "\n";
}

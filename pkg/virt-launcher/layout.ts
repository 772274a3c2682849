// Where everything lives inside a launcher pod. The defaults are upstream's fixed paths (the
// pod's emptyDirs are mounted there); a launcher started outside a pod, as in tests, points the
// five roots elsewhere and everything else follows. The roots and the storage paths other
// components share are in pkg/util/launcher-layout.ts.
import { join } from "node:path";
import { libvirtRuntimeDir, type LauncherLayout } from "../util/launcher-layout.js";

export * from "../util/launcher-layout.js";

/** Per-VMI private dir: the serial console and VNC sockets. */
export const vmiPrivateDir = (layout: LauncherLayout, vmiUID: string): string =>
  join(layout.privateDir, vmiUID);
export const serialConsoleSocket = (layout: LauncherLayout, vmiUID: string): string =>
  join(vmiPrivateDir(layout, vmiUID), "virt-serial0");
export const vncSocket = (layout: LauncherLayout, vmiUID: string): string =>
  join(vmiPrivateDir(layout, vmiUID), "virt-vnc");

/** `<domain name>.pid` files of running QEMU processes. */
export const qemuPidDir = (layout: LauncherLayout): string => join(libvirtRuntimeDir(layout), "qemu/run");
export const emptyDiskDir = (layout: LauncherLayout): string =>
  join(libvirtRuntimeDir(layout), "empty-disks");

/** libvirt's XDG_CONFIG_HOME/XDG_CACHE_HOME is the private dir: config and QEMU logs go under it. */
export const libvirtHomeDir = (layout: LauncherLayout): string => join(layout.privateDir, "libvirt");
export const qemuLogDir = (layout: LauncherLayout): string => join(libvirtHomeDir(layout), "qemu/log");

export const cloudInitDir = (layout: LauncherLayout): string =>
  join(layout.ephemeralDiskDir, "cloud-init-data");
/** Secrets referenced by the VMI (cloud-init secretRefs) are mounted here, one dir per volume. */
export const secretSourceDir = (layout: LauncherLayout): string => join(layout.privateDir, "secret");

// The files a launcher's private libvirtd reads: libvirtd.conf and qemu.conf under its
// XDG_CONFIG_HOME, and the environment it starts with.
import { join } from "node:path";
import type { LauncherLayout } from "../layout.js";
import { libvirtHomeDir } from "../layout.js";

export interface LibvirtConfigOptions {
  /** `--libvirt-log-filters`, e.g. "3:remote 4:event 1:qemu"; empty keeps libvirt's default. */
  logFilters?: string;
}

export function libvirtdConf(options: LibvirtConfigOptions = {}): string {
  const lines = ['log_outputs="3:stderr"'];
  if (options.logFilters) lines.push(`log_filters="${options.logFilters.replace(/"/g, "")}"`);
  return lines.join("\n") + "\n";
}

/** QEMU's output goes to a file, so no per-user virtlogd daemon is started (about 18 MB saved). */
export function qemuConf(): string {
  return 'stdio_handler = "file"\n';
}

/** Where a session libvirtd reads its config files: `$XDG_CONFIG_HOME/libvirt`. */
export function libvirtConfigDir(layout: LauncherLayout): string {
  return join(libvirtdEnvironment(layout).XDG_CONFIG_HOME, "libvirt");
}

/** The daemon's whole environment: nothing from the launcher's leaks into it. */
export function libvirtdEnvironment(layout: LauncherLayout) {
  return {
    PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: libvirtHomeDir(layout),
    XDG_RUNTIME_DIR: layout.runDir,
    XDG_CONFIG_HOME: layout.privateDir,
    XDG_CACHE_HOME: layout.privateDir,
  };
}

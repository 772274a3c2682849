import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT } from "../layout.js";
import { libvirtConfigDir, libvirtdConf, libvirtdEnvironment, qemuConf } from "./config.js";

describe("the private libvirtd's configuration", () => {
  it("logs to stderr, with the filters asked for", () => {
    expect(libvirtdConf()).toBe('log_outputs="3:stderr"\n');
    expect(libvirtdConf({ logFilters: '3:remote 4:"event"' })).toBe(
      'log_outputs="3:stderr"\nlog_filters="3:remote 4:event"\n',
    );
  });

  it("sends QEMU's output to a file, so no virtlogd is started", () => {
    expect(qemuConf()).toBe('stdio_handler = "file"\n');
  });

  it("lives in upstream's non-root layout: runtime under /var/run, config and logs in the private dir", () => {
    expect(libvirtdEnvironment(DEFAULT_LAYOUT)).toEqual({
      PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
      HOME: "/var/run/kubevirt-private/libvirt",
      XDG_RUNTIME_DIR: "/var/run",
      XDG_CONFIG_HOME: "/var/run/kubevirt-private",
      XDG_CACHE_HOME: "/var/run/kubevirt-private",
    });
  });

  it("writes its config files where a session libvirtd reads them, $XDG_CONFIG_HOME/libvirt", () => {
    // upstream's path; config one level deeper is silently ignored (and QEMU's output then spawns virtlogd)
    expect(libvirtConfigDir(DEFAULT_LAYOUT)).toBe("/var/run/kubevirt-private/libvirt");
  });
});

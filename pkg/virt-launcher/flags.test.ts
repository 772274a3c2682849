import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT } from "./layout.js";
import { parseLauncherFlags } from "./flags.js";

describe("virt-launcher's command line", () => {
  it("reads the arguments upstream's virt-controller renders", () => {
    // prettier-ignore
    const flags = parseLauncherFlags([
      "--qemu-timeout", "308s",
      "--name", "testvmi",
      "--uid", "2b33f85a-5752-4bd0-aadb-2dc06be33772",
      "--namespace", "default",
      "--kubevirt-share-dir", "/var/run/kubevirt",
      "--ephemeral-disk-dir", "/var/run/kubevirt-ephemeral-disks",
      "--container-disk-dir", "/var/run/kubevirt/container-disks",
      "--grace-period-seconds", "45",
      "--hook-sidecars", "0",
      "--ovmf-path", "/usr/share/OVMF",
      "--disk-memory-limit", "2097152000",
      "--hypervisor", "kvm",
      "--allow-emulation",
    ]);
    expect(flags).toMatchObject({
      name: "testvmi",
      namespace: "default",
      uid: "2b33f85a-5752-4bd0-aadb-2dc06be33772",
      layout: DEFAULT_LAYOUT,
      qemuTimeoutMs: 308_000,
      gracePeriodSeconds: 45,
      allowEmulation: true,
      runAsNonRoot: false,
      libvirtUid: 107,
    });
    expect(flags.ignored).toEqual(["ovmf-path", "disk-memory-limit"]);
  });

  it("has upstream's defaults", () => {
    expect(parseLauncherFlags([])).toMatchObject({
      qemuTimeoutMs: 180_000,
      gracePeriodSeconds: 30,
      allowEmulation: false,
    });
  });

  it.each([
    [["--hook-sidecars", "1"], "--hook-sidecars: hook sidecars are not supported yet by kubevirt-ts"],
    [["--hypervisor", "mshv"], "--hypervisor mshv is not supported yet by kubevirt-ts"],
    [
      ["--grace-period-seconds", "soon"],
      'invalid argument "soon" for "--grace-period-seconds" flag: strconv.ParseInt: parsing "soon": invalid syntax',
    ],
    [["--qemu-timeout", "5 minutes"], 'time: invalid duration "5 minutes"'],
    [["--no-such-flag"], /Unknown option '--no-such-flag'/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseLauncherFlags(argv)).toThrow(message);
  });

  it("reads the guest agent poll intervals as Go durations, upstream's by default", () => {
    expect(parseLauncherFlags([]).agentPollIntervals).toEqual({
      sysMs: 120_000,
      fileMs: 300_000,
      userMs: 10_000,
      versionMs: 300_000,
      fsFreezeStatusMs: 5_000,
    });
    // prettier-ignore
    const flags = parseLauncherFlags([
      "--qemu-agent-sys-interval", "1m",
      "--qemu-agent-file-interval", "2m30s",
      "--qemu-agent-user-interval", "5s",
      "--qemu-agent-version-interval", "1h",
      "--qemu-fsfreeze-status-interval", "500ms",
    ]);
    expect(flags.agentPollIntervals).toEqual({
      sysMs: 60_000,
      fileMs: 150_000,
      userMs: 5_000,
      versionMs: 3_600_000,
      fsFreezeStatusMs: 500,
    });
    expect(flags.ignored).toEqual([]);
    expect(() => parseLauncherFlags(["--qemu-agent-user-interval", "0s"])).toThrow(
      '--qemu-agent-user-interval: the interval must be positive, got "0s"',
    );
  });

  it("reads --qemu-timeout as a Go duration", () => {
    expect(parseLauncherFlags(["--qemu-timeout", "3m0s"]).qemuTimeoutMs).toBe(180_000);
  });
});

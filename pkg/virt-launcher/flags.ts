// virt-launcher's command line, with upstream's flag names and defaults. Flags upstream's
// virt-controller passes for features this port does not have yet are accepted and noted;
// the ones that would change behaviour we cannot provide are refused.
import { parseArgs } from "node:util";
import { intFlag } from "../util/flags.js";
import { parseGoDuration } from "../util/go-duration.js";
import type { LauncherLayout } from "./layout.js";
import { DEFAULT_LAYOUT } from "./layout.js";
import { NON_ROOT_UID } from "./libvirtd/identity.js";
import type { AgentPollIntervals } from "./virtwrap/agent-poller/agent-poller.js";
import { DEFAULT_AGENT_POLL_INTERVALS } from "./virtwrap/agent-poller/agent-poller.js";

export interface LauncherFlags {
  name: string;
  namespace: string;
  uid: string;
  layout: LauncherLayout;
  qemuTimeoutMs: number;
  gracePeriodSeconds: number;
  allowEmulation: boolean;
  runAsNonRoot: boolean;
  keepAfterFailure: boolean;
  simulateCrash: boolean;
  libvirtLogFilters: string;
  libvirtUid: number;
  /** How often the guest agent is asked what (upstream's --qemu-agent-*-interval flags). */
  agentPollIntervals: AgentPollIntervals;
  verbosity: number;
  /** Flags accepted for compatibility that change nothing here, for the log. */
  ignored: string[];
}

const DEFAULT_QEMU_TIMEOUT_MS = 3 * 60_000;

const STRING_FLAGS = [
  "qemu-timeout",
  "kubevirt-share-dir",
  "ephemeral-disk-dir",
  "container-disk-dir",
  "hotplug-disk-dir",
  "name",
  "uid",
  "namespace",
  "grace-period-seconds",
  "hook-sidecars",
  "libvirt-log-filters",
  "hypervisor",
  // This port's additions, for launchers run outside a pod's fixed paths.
  "kubevirt-private-dir",
  "run-dir",
  "libvirt-uid",
  "qemu-agent-sys-interval",
  "qemu-agent-file-interval",
  "qemu-agent-user-interval",
  "qemu-agent-version-interval",
  "qemu-fsfreeze-status-interval",
  // Accepted, unused: firmware and disk verification are not here yet.
  "ovmf-path",
  "disk-memory-limit",
  "v",
] as const;

const BOOLEAN_FLAGS = [
  "allow-emulation",
  "run-as-nonroot",
  "keep-after-failure",
  "simulate-crash",
  // Accepted, unused: the features behind them are not implemented yet.
  "allow-cross-arch-emulation",
  "image-volume",
  "upgrade-ordinal-ifaces",
  "vgpu-dedicated-hook",
  "vm-stats-collector",
  "firmware-auto-selection",
] as const;

const UNUSED = new Set<string>([
  "hotplug-disk-dir",
  "ovmf-path",
  "disk-memory-limit",
  "allow-cross-arch-emulation",
  "image-volume",
  "upgrade-ordinal-ifaces",
  "vgpu-dedicated-hook",
  "vm-stats-collector",
  "firmware-auto-selection",
]);

/** A duration flag in milliseconds, `fallback` when absent; a poll period must be positive (Go's ticker panics). */
function intervalFlag(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseGoDuration(text);
  if (ms <= 0) throw new Error(`--${name}: the interval must be positive, got "${text}"`);
  return ms;
}

export function parseLauncherFlags(argv: readonly string[]): LauncherFlags {
  const options = Object.fromEntries([
    ...STRING_FLAGS.map((flag) => [flag, { type: "string" as const }]),
    ...BOOLEAN_FLAGS.map((flag) => [flag, { type: "boolean" as const }]),
  ]);
  const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const text = (flag: string): string | undefined => {
    const value = values[flag];
    return typeof value === "string" ? value : undefined;
  };
  const flag = (name: string): boolean => values[name] === true;
  if (intFlag("hook-sidecars", text("hook-sidecars"), 0) !== 0) {
    throw new Error("--hook-sidecars: hook sidecars are not supported yet by kubevirt-ts");
  }
  const hypervisor = text("hypervisor") ?? "kvm";
  if (hypervisor !== "kvm") throw new Error(`--hypervisor ${hypervisor} is not supported yet by kubevirt-ts`);
  const virtShareDir = text("kubevirt-share-dir") ?? DEFAULT_LAYOUT.virtShareDir;
  return {
    name: text("name") ?? "",
    namespace: text("namespace") ?? "",
    uid: text("uid") ?? "",
    layout: {
      virtShareDir,
      ephemeralDiskDir: text("ephemeral-disk-dir") ?? DEFAULT_LAYOUT.ephemeralDiskDir,
      containerDiskDir: text("container-disk-dir") ?? DEFAULT_LAYOUT.containerDiskDir,
      privateDir: text("kubevirt-private-dir") ?? DEFAULT_LAYOUT.privateDir,
      runDir: text("run-dir") ?? DEFAULT_LAYOUT.runDir,
    },
    qemuTimeoutMs:
      text("qemu-timeout") === undefined
        ? DEFAULT_QEMU_TIMEOUT_MS
        : parseGoDuration(text("qemu-timeout") ?? ""),
    gracePeriodSeconds: intFlag("grace-period-seconds", text("grace-period-seconds"), 30),
    allowEmulation: flag("allow-emulation"),
    runAsNonRoot: flag("run-as-nonroot"),
    keepAfterFailure: flag("keep-after-failure"),
    simulateCrash: flag("simulate-crash"),
    libvirtLogFilters: text("libvirt-log-filters") ?? "",
    libvirtUid: intFlag("libvirt-uid", text("libvirt-uid"), NON_ROOT_UID),
    agentPollIntervals: {
      sysMs: intervalFlag(
        "qemu-agent-sys-interval",
        text("qemu-agent-sys-interval"),
        DEFAULT_AGENT_POLL_INTERVALS.sysMs,
      ),
      fileMs: intervalFlag(
        "qemu-agent-file-interval",
        text("qemu-agent-file-interval"),
        DEFAULT_AGENT_POLL_INTERVALS.fileMs,
      ),
      userMs: intervalFlag(
        "qemu-agent-user-interval",
        text("qemu-agent-user-interval"),
        DEFAULT_AGENT_POLL_INTERVALS.userMs,
      ),
      versionMs: intervalFlag(
        "qemu-agent-version-interval",
        text("qemu-agent-version-interval"),
        DEFAULT_AGENT_POLL_INTERVALS.versionMs,
      ),
      fsFreezeStatusMs: intervalFlag(
        "qemu-fsfreeze-status-interval",
        text("qemu-fsfreeze-status-interval"),
        DEFAULT_AGENT_POLL_INTERVALS.fsFreezeStatusMs,
      ),
    },
    verbosity: intFlag("v", text("v"), 2),
    ignored: Object.keys(values).filter((name) => UNUSED.has(name)),
  };
}

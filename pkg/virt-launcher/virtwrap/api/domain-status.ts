// The domain's state as KubeVirt names it (upstream api.LifeCycle / api.StateChangeReason) and
// the translation from libvirt's virDomainState and reason enums (upstream util.ConvState/ConvReason).
import * as libvirt from "../../../libvirt/generated/libvirt-api.js";

export const LifeCycle = {
  NoState: "NoState",
  Running: "Running",
  Blocked: "Blocked",
  Paused: "Paused",
  Shutdown: "ShuttingDown",
  Shutoff: "Shutoff",
  Crashed: "Crashed",
  PMSuspended: "PMSuspended",
  /** The launcher is unreachable; virt-handler's own value, never sent by a launcher. */
  Unknown: "Unknown",
} as const;
export type LifeCycle = (typeof LifeCycle)[keyof typeof LifeCycle];

export const StateChangeReason = {
  Unknown: "Unknown",
  User: "User",
  Shutdown: "Shutdown",
  Destroyed: "Destroyed",
  Migrated: "Migrated",
  Crashed: "Crashed",
  Panicked: "Panicked",
  Saved: "Saved",
  Failed: "Failed",
  FromSnapshot: "FromSnapshot",
  NonExistent: "NonExistent",
  PausedMigration: "Migration",
  PausedSave: "Save",
  PausedDump: "Dump",
  PausedIOError: "IOError",
  PausedWatchdog: "Watchdog",
  PausedShuttingDown: "ShuttingDown",
  PausedSnapshot: "Snapshot",
  PausedStartingUp: "StartingUp",
  PausedPostcopy: "Postcopy",
  PausedPostcopyFailed: "PostcopyFailed",
} as const;
export type StateChangeReason = (typeof StateChangeReason)[keyof typeof StateChangeReason];

const lifeCycles: Readonly<Record<number, LifeCycle>> = {
  [libvirt.VIR_DOMAIN_NOSTATE]: LifeCycle.NoState,
  [libvirt.VIR_DOMAIN_RUNNING]: LifeCycle.Running,
  [libvirt.VIR_DOMAIN_BLOCKED]: LifeCycle.Blocked,
  [libvirt.VIR_DOMAIN_PAUSED]: LifeCycle.Paused,
  [libvirt.VIR_DOMAIN_SHUTDOWN]: LifeCycle.Shutdown,
  [libvirt.VIR_DOMAIN_SHUTOFF]: LifeCycle.Shutoff,
  [libvirt.VIR_DOMAIN_CRASHED]: LifeCycle.Crashed,
  [libvirt.VIR_DOMAIN_PMSUSPENDED]: LifeCycle.PMSuspended,
};

const shutdownReasons: Readonly<Record<number, StateChangeReason>> = {
  [libvirt.VIR_DOMAIN_SHUTDOWN_UNKNOWN]: StateChangeReason.Unknown,
  [libvirt.VIR_DOMAIN_SHUTDOWN_USER]: StateChangeReason.User,
};

const shutoffReasons: Readonly<Record<number, StateChangeReason>> = {
  [libvirt.VIR_DOMAIN_SHUTOFF_UNKNOWN]: StateChangeReason.Unknown,
  [libvirt.VIR_DOMAIN_SHUTOFF_SHUTDOWN]: StateChangeReason.Shutdown,
  [libvirt.VIR_DOMAIN_SHUTOFF_DESTROYED]: StateChangeReason.Destroyed,
  [libvirt.VIR_DOMAIN_SHUTOFF_CRASHED]: StateChangeReason.Crashed,
  [libvirt.VIR_DOMAIN_SHUTOFF_MIGRATED]: StateChangeReason.Migrated,
  [libvirt.VIR_DOMAIN_SHUTOFF_SAVED]: StateChangeReason.Saved,
  [libvirt.VIR_DOMAIN_SHUTOFF_FAILED]: StateChangeReason.Failed,
  [libvirt.VIR_DOMAIN_SHUTOFF_FROM_SNAPSHOT]: StateChangeReason.FromSnapshot,
};

const crashedReasons: Readonly<Record<number, StateChangeReason>> = {
  [libvirt.VIR_DOMAIN_CRASHED_UNKNOWN]: StateChangeReason.Unknown,
  [libvirt.VIR_DOMAIN_CRASHED_PANICKED]: StateChangeReason.Panicked,
};

const pausedReasons: Readonly<Record<number, StateChangeReason>> = {
  [libvirt.VIR_DOMAIN_PAUSED_UNKNOWN]: StateChangeReason.Unknown,
  [libvirt.VIR_DOMAIN_PAUSED_USER]: StateChangeReason.User,
  [libvirt.VIR_DOMAIN_PAUSED_MIGRATION]: StateChangeReason.PausedMigration,
  [libvirt.VIR_DOMAIN_PAUSED_SAVE]: StateChangeReason.PausedSave,
  [libvirt.VIR_DOMAIN_PAUSED_DUMP]: StateChangeReason.PausedDump,
  [libvirt.VIR_DOMAIN_PAUSED_IOERROR]: StateChangeReason.PausedIOError,
  [libvirt.VIR_DOMAIN_PAUSED_WATCHDOG]: StateChangeReason.PausedWatchdog,
  [libvirt.VIR_DOMAIN_PAUSED_FROM_SNAPSHOT]: StateChangeReason.FromSnapshot,
  [libvirt.VIR_DOMAIN_PAUSED_SHUTTING_DOWN]: StateChangeReason.PausedShuttingDown,
  [libvirt.VIR_DOMAIN_PAUSED_SNAPSHOT]: StateChangeReason.PausedSnapshot,
  [libvirt.VIR_DOMAIN_PAUSED_CRASHED]: StateChangeReason.Crashed,
  [libvirt.VIR_DOMAIN_PAUSED_STARTING_UP]: StateChangeReason.PausedStartingUp,
  [libvirt.VIR_DOMAIN_PAUSED_POSTCOPY]: StateChangeReason.PausedPostcopy,
  [libvirt.VIR_DOMAIN_PAUSED_POSTCOPY_FAILED]: StateChangeReason.PausedPostcopyFailed,
};

/** Upstream maps an unknown state to the empty LifeCycle; so does this. */
export function convState(state: number): LifeCycle | "" {
  return lifeCycles[state] ?? "";
}

export function convReason(state: number, reason: number): StateChangeReason | "" {
  const table = {
    [libvirt.VIR_DOMAIN_SHUTDOWN]: shutdownReasons,
    [libvirt.VIR_DOMAIN_SHUTOFF]: shutoffReasons,
    [libvirt.VIR_DOMAIN_CRASHED]: crashedReasons,
    [libvirt.VIR_DOMAIN_PAUSED]: pausedReasons,
  }[state];
  return table ? (table[reason] ?? "") : StateChangeReason.Unknown;
}

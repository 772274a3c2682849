import { BenchError } from "../common/bench-error.js";

// The guest's downtime as the guest lived it. QEMU's virtual clock, which the guest's clock sources run
// on, stands still while the VM is paused for the switch-over and goes on from where it stood on the
// target. So between two readings of the guest's uptime, one before the migration and one after, the
// guest's clock falls behind the host's by the time the guest was not running.

export interface GuestClockReading {
  /** The host's monotonic clock (performance.now(), ms) when the reading's command was typed. */
  wallMs: number;
  /** The guest's seconds since boot (/proc/uptime, 10 ms resolution). */
  uptimeS: number;
}

/** Prints the first field of /proc/uptime: the guest's seconds since boot. */
export const UPTIME_COMMAND = "cut -d' ' -f1 /proc/uptime";

export function parseUptime(output: string): number {
  const trimmed = output.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed))
    throw new BenchError(`unexpected /proc/uptime in the guest: ${JSON.stringify(output)}`);
  return Number(trimmed);
}

/**
 * Seconds the guest's clock lost against the host's between the two readings. The console's latency
 * delays both readings alike and cancels out; what differs between them stays within a round trip.
 * Small negative values are that error, not a bug.
 */
export function guestDowntimeS(before: GuestClockReading, after: GuestClockReading): number {
  const hostS = (after.wallMs - before.wallMs) / 1000;
  const guestS = after.uptimeS - before.uptimeS;
  // A guest that booted again counts from 0: its uptime is below the time that passed.
  if (guestS < 0 || after.uptimeS < hostS) {
    throw new BenchError(
      `the guest rebooted during the migration: its uptime went from ${before.uptimeS} s to ${after.uptimeS} s ` +
        `in ${hostS.toFixed(1)} s`,
    );
  }
  return hostS - guestS;
}

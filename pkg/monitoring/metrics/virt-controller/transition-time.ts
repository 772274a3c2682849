// What the phase transition histograms share (upstream metrics.go): the buckets, and the time between two
// timestamps, never negative since fast transitions may be recorded out of order.

export const PHASE_TRANSITION_TIME_BUCKETS = [
  0.5,
  1,
  2,
  5,
  10,
  20,
  30,
  40,
  50,
  60,
  90,
  2 * 60,
  3 * 60,
  5 * 60,
  10 * 60,
  20 * 60,
  30 * 60,
  60 * 60,
];

/** Seconds from `from` to `to` (RFC 3339), 0 at least; undefined when either is missing or unreadable. */
export function secondsBetween(
  from: string | null | undefined,
  to: string | null | undefined,
): number | undefined {
  if (!from || !to) return undefined;
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  if (Number.isNaN(seconds)) return undefined;
  return Math.max(0, seconds);
}

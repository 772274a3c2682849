// The API's timestamps (metav1.Time: RFC 3339, whole seconds) as the benchmarks read them.

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch; undefined when absent or not RFC 3339 (Date.parse alone takes far more). */
export function parseTimestamp(value: string | null | undefined): number | undefined {
  if (!value || !RFC3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function secondsBetween(
  start: string | null | undefined,
  end: string | null | undefined,
): number | undefined {
  const from = parseTimestamp(start);
  const to = parseTimestamp(end);
  return from === undefined || to === undefined ? undefined : (to - from) / 1000;
}

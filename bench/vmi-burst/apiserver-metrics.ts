// The kube-apiserver's request counter, apiserver_request_total{verb,resource,subresource,code,...}, read
// from its /metrics (Prometheus text format 0.0.4) before and after the burst: the difference is every
// request the apiserver finished in between, by verb and resource. What kubectl answers is parsed with
// care: any input gives counts or a clear error, never an exception. The lines are read by the project's one
// exposition reader (pkg/monitoring/metrics/exposition.ts).
import { metricNameOf, parseSampleLine } from "../../pkg/monitoring/metrics/exposition.js";

export const METRIC = "apiserver_request_total";

export interface RequestCount {
  verb: string;
  /** "pods", "pods/status" (with the subresource), or a non-resource URL's path ("/metrics", "/healthz"). */
  resource: string;
  count: number;
  /** Of those, the ones answered with a code other than 2xx (conflicts, not found, throttled ...). */
  notOk: number;
}

/** Per `verb resource`. */
export type RequestCounts = ReadonlyMap<string, RequestCount>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** How many unreadable lines an error names, and how much of each line it quotes. */
const MAX_NAMED = 3;
const EXCERPT = 80;

const excerpt = (line: string): string =>
  JSON.stringify(line.length > EXCERPT ? `${line.slice(0, EXCERPT)}...` : line);

/** One sample line of METRIC: its labels and value, or why it is unreadable as a request counter. */
function parseSample(line: string): { labels: Record<string, string>; value: number } | string {
  const sample = parseSampleLine(line);
  if (typeof sample === "string") return sample;
  if (!Number.isFinite(sample.value) || sample.value < 0) return `a counter of ${sample.valueText}`;
  if (!Object.hasOwn(sample.labels, "verb")) return "no verb label";
  if (!Object.hasOwn(sample.labels, "resource")) return "no resource label";
  return sample;
}

const keyOf = (verb: string, resource: string): string => `${verb} ${resource}`;

/** The counts of METRIC in a /metrics text, summed per verb and resource over the other labels. */
export function parseRequestCounts(text: unknown): Parsed<RequestCounts> {
  if (typeof text !== "string") return { ok: false, error: `/metrics gave ${typeof text}, not text` };
  const counts = new Map<string, RequestCount>();
  const series = new Set<string>();
  const unreadable: string[] = [];
  let unreadableCount = 0;
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, "").trimStart();
    if (line === "" || line.startsWith("#")) return;
    if (metricNameOf(line) !== METRIC) return;
    const sample = parseSample(line);
    const fail = (why: string): void => {
      unreadableCount++;
      if (unreadable.length < MAX_NAMED) unreadable.push(`line ${index + 1}: ${why}: ${excerpt(line)}`);
    };
    if (typeof sample === "string") return fail(sample);
    const identity = JSON.stringify(Object.entries(sample.labels).sort(([a], [b]) => a.localeCompare(b)));
    if (series.has(identity)) return fail("the same series twice");
    series.add(identity);
    const verb = sample.labels["verb"] ?? "";
    const subresource = sample.labels["subresource"] ?? "";
    const named = sample.labels["resource"] ?? "";
    // A non-resource URL has no resource, and its path as the subresource ("/metrics").
    const resource = named === "" ? subresource : subresource ? `${named}/${subresource}` : named;
    const key = keyOf(verb, resource);
    const entry = counts.get(key) ?? { verb, resource, count: 0, notOk: 0 };
    entry.count += sample.value;
    if (!/^2\d\d$/.test(sample.labels["code"] ?? "")) entry.notOk += sample.value;
    counts.set(key, entry);
  });
  if (unreadableCount > 0) {
    const more =
      unreadableCount > unreadable.length ? ` (and ${unreadableCount - unreadable.length} more)` : "";
    return { ok: false, error: `unreadable ${METRIC} samples in /metrics: ${unreadable.join("; ")}${more}` };
  }
  if (series.size === 0)
    return {
      ok: false,
      error: `no ${METRIC} samples in /metrics (${lines.length} lines): is it the kube-apiserver's?`,
    };
  return { ok: true, value: counts };
}

export interface RequestDelta {
  rows: RequestCount[];
  total: number;
  totalNotOk: number;
}

/**
 * What was counted between two readings, most requests first (then by resource and verb); nothing for a
 * verb and resource that did not change. A counter that went down means the apiserver restarted between
 * the readings: an error, since the difference says nothing then.
 */
export function requestDelta(before: RequestCounts, after: RequestCounts): Parsed<RequestDelta> {
  const rows: RequestCount[] = [];
  for (const [key, now] of after) {
    const then = before.get(key) ?? { count: 0, notOk: 0 };
    if (now.count < then.count || now.notOk < then.notOk) {
      return {
        ok: false,
        error:
          `${METRIC}{verb="${now.verb}",resource="${now.resource}"} went down from ${then.count} to ${now.count}: ` +
          "the apiserver restarted between the two readings",
      };
    }
    const count = now.count - then.count;
    if (count > 0)
      rows.push({ verb: now.verb, resource: now.resource, count, notOk: now.notOk - then.notOk });
  }
  for (const [key, then] of before) {
    if (!after.has(key))
      return {
        ok: false,
        error: `${METRIC}{verb="${then.verb}",resource="${then.resource}"} is gone from the second reading: the apiserver restarted between the two readings`,
      };
  }
  rows.sort(
    (a, b) => b.count - a.count || a.resource.localeCompare(b.resource) || a.verb.localeCompare(b.verb),
  );
  const sum = (pick: (row: RequestCount) => number): number =>
    rows.reduce((total, row) => total + pick(row), 0);
  return { ok: true, value: { rows, total: sum((row) => row.count), totalNotOk: sum((row) => row.notOk) } };
}

/** Both readings parsed and subtracted, or the first error. */
export function requestDeltaOfTexts(before: unknown, after: unknown): Parsed<RequestDelta> {
  const then = parseRequestCounts(before);
  if (!then.ok) return { ok: false, error: `the reading before: ${then.error}` };
  const now = parseRequestCounts(after);
  if (!now.ok) return { ok: false, error: `the reading after: ${now.error}` };
  return requestDelta(then.value, now.value);
}

// The kube-apiserver's request counter, apiserver_request_total{verb,resource,subresource,code,...}, read
// from its /metrics (Prometheus text format 0.0.4) before and after the burst: the difference is every
// request the apiserver finished in between, by verb and resource. What kubectl answers is parsed with
// care: any input gives counts or a clear error, never an exception.

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

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
/** A sample value as Prometheus writes one (Go's strconv.FormatFloat), or an integer. */
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?Inf$|^NaN$/;
const TIMESTAMP = /^-?\d+$/;
/** How many unreadable lines an error names, and how much of each line it quotes. */
const MAX_NAMED = 3;
const EXCERPT = 80;

const excerpt = (line: string): string =>
  JSON.stringify(line.length > EXCERPT ? `${line.slice(0, EXCERPT)}...` : line);

/** `{name="value",...}` at the start of `text`: the labels and what follows, or why not. */
function parseLabels(text: string): { labels: Map<string, string>; rest: string } | string {
  const labels = new Map<string, string>();
  let at = 1;
  for (;;) {
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] === "}") return { labels, rest: text.slice(at + 1) };
    const name = LABEL_NAME.exec(text.slice(at))?.[0];
    if (!name)
      return at >= text.length ? "unterminated label set" : `a label name expected at column ${at + 1}`;
    at += name.length;
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] !== "=") return `"=" expected after label ${name}`;
    at++;
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] !== '"') return `a quoted value expected for label ${name}`;
    at++;
    let value = "";
    for (;;) {
      const c = text[at];
      if (c === undefined) return `the value of label ${name} is not closed`;
      if (c === '"') break;
      if (c === "\\") {
        const escaped = text[at + 1];
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else return `unknown escape \\${escaped ?? ""} in the value of label ${name}`;
        at += 2;
        continue;
      }
      value += c;
      at++;
    }
    at++;
    if (labels.has(name)) return `label ${name} twice`;
    labels.set(name, value);
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] === ",") at++;
    else if (text[at] !== "}") return `"," or "}" expected after label ${name}`;
  }
}

/** One sample line of METRIC: its labels and value, or why it is unreadable. */
function parseSample(line: string): { labels: Map<string, string>; value: number } | string {
  let rest = line.slice(METRIC.length);
  let labels = new Map<string, string>();
  if (rest.startsWith("{")) {
    const parsed = parseLabels(rest);
    if (typeof parsed === "string") return parsed;
    ({ labels, rest } = parsed);
  }
  const fields = rest.trim().split(/[ \t]+/);
  const [valueText, timestamp, ...extra] = fields;
  if (!valueText) return "no value";
  if (extra.length > 0 || (timestamp !== undefined && !TIMESTAMP.test(timestamp)))
    return "more than a value and a timestamp after the labels";
  if (!FLOAT.test(valueText)) return `the value ${JSON.stringify(valueText)} is not a number`;
  const value = Number(valueText.replace(/Inf$/, "Infinity"));
  if (!Number.isFinite(value) || value < 0) return `a counter of ${valueText}`;
  if (!labels.has("verb")) return "no verb label";
  if (!labels.has("resource")) return "no resource label";
  return { labels, value };
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
    if (NAME.exec(line)?.[0] !== METRIC) return;
    const sample = parseSample(line);
    const fail = (why: string): void => {
      unreadableCount++;
      if (unreadable.length < MAX_NAMED) unreadable.push(`line ${index + 1}: ${why}: ${excerpt(line)}`);
    };
    if (typeof sample === "string") return fail(sample);
    const identity = JSON.stringify([...sample.labels].sort(([a], [b]) => a.localeCompare(b)));
    if (series.has(identity)) return fail("the same series twice");
    series.add(identity);
    const verb = sample.labels.get("verb")!;
    const subresource = sample.labels.get("subresource") ?? "";
    const named = sample.labels.get("resource")!;
    // A non-resource URL has no resource, and its path as the subresource ("/metrics").
    const resource = named === "" ? subresource : subresource ? `${named}/${subresource}` : named;
    const key = keyOf(verb, resource);
    const entry = counts.get(key) ?? { verb, resource, count: 0, notOk: 0 };
    entry.count += sample.value;
    if (!/^2\d\d$/.test(sample.labels.get("code") ?? "")) entry.notOk += sample.value;
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

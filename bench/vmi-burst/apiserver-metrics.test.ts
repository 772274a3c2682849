import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseRequestCounts,
  requestDelta,
  requestDeltaOfTexts,
  type RequestCounts,
} from "./apiserver-metrics.js";

const sample = (labels: Record<string, string>, value: string): string =>
  `apiserver_request_total{${Object.entries(labels)
    .map(([name, v]) => `${name}="${v}"`)
    .join(",")}} ${value}`;

const labels = (verb: string, resource: string, code = "200", extra: Record<string, string> = {}) => ({
  code,
  component: "apiserver",
  dry_run: "",
  group: "",
  resource,
  scope: "namespace",
  subresource: "",
  verb,
  version: "v1",
  ...extra,
});

/** The shape of the kube-apiserver's /metrics around the counter. */
const metrics = (lines: string[]): string =>
  [
    "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    "# TYPE apiserver_request_total counter",
    ...lines,
    "# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds.",
    "# TYPE apiserver_request_duration_seconds histogram",
    'apiserver_request_duration_seconds_bucket{component="apiserver",verb="LIST",resource="pods",le="0.005"} 17',
    'apiserver_request_total_not_this_one{verb="GET",resource="pods"} 99',
    "",
  ].join("\n");

const counts = (parsed: ReturnType<typeof parseRequestCounts>): RequestCounts => {
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe("apiserver_request_total", () => {
  it("sums the counter per verb and resource (subresource included) over codes, groups and scopes", () => {
    const text = metrics([
      sample(labels("LIST", "pods"), "12"),
      sample(labels("LIST", "pods", "200", { scope: "cluster" }), "3"),
      sample(labels("PATCH", "pods", "200", { subresource: "status" }), "40"),
      sample(labels("PATCH", "pods", "409", { subresource: "status" }), "2"),
      sample(labels("POST", "virtualmachineinstances", "201", { group: "kubevirt.io" }), "1e2"),
      sample(labels("GET", "", "200", { subresource: "/metrics", scope: "", version: "" }), "7"),
      `${sample(labels("WATCH", "nodes"), "5")} 1700000000000`,
    ]);
    expect([...counts(parseRequestCounts(text)).values()]).toEqual([
      { verb: "LIST", resource: "pods", count: 15, notOk: 0 },
      { verb: "PATCH", resource: "pods/status", count: 42, notOk: 2 },
      { verb: "POST", resource: "virtualmachineinstances", count: 100, notOk: 0 },
      { verb: "GET", resource: "/metrics", count: 7, notOk: 0 },
      { verb: "WATCH", resource: "nodes", count: 5, notOk: 0 },
    ]);
  });

  it("reads escaped label values, spaces and a trailing comma as the text format allows", () => {
    const text = metrics([
      'apiserver_request_total{ verb = "GET" , resource="a\\"b\\\\c\\nd", code="200", } 3',
      'apiserver_request_total{verb="GET",resource="x,y}",code="404"}\t2\r',
    ]);
    expect([...counts(parseRequestCounts(text)).values()]).toEqual([
      { verb: "GET", resource: 'a"b\\c\nd', count: 3, notOk: 0 },
      { verb: "GET", resource: "x,y}", count: 2, notOk: 2 },
    ]);
  });

  it("refuses what is not the apiserver's counter, with a clear error naming the line", () => {
    const refusals: [unknown, RegExp][] = [
      [undefined, /gave undefined, not text/],
      [42, /gave number, not text/],
      ["", /no apiserver_request_total samples in \/metrics \(1 lines\)/],
      ["<html>502 Bad Gateway</html>", /no apiserver_request_total samples/],
      [metrics([sample(labels("GET", "pods"), "-1")]), /line 3: a counter of -1: "apiserver_request_total\{/],
      [metrics([sample(labels("GET", "pods"), "NaN")]), /a counter of NaN/],
      [metrics([sample(labels("GET", "pods"), "+Inf")]), /a counter of \+Inf/],
      [metrics([sample(labels("GET", "pods"), "0x10")]), /the value "0x10" is not a number/],
      [metrics([sample(labels("GET", "pods"), "")]), /no value/],
      [metrics([sample(labels("GET", "pods"), "1 2 3")]), /more than a value and a timestamp/],
      [metrics(['apiserver_request_total{resource="pods",code="200"} 1']), /no verb label/],
      [metrics(['apiserver_request_total{verb="GET",code="200"} 1']), /no resource label/],
      [
        metrics(['apiserver_request_total{verb="GET",resource="pods} 1']),
        /the value of label resource is not closed/,
      ],
      [
        metrics(['apiserver_request_total{verb="GET" resource="pods"} 1']),
        /"," or "}" expected after label verb/,
      ],
      [metrics(["apiserver_request_total{verb=GET} 1"]), /a quoted value expected for label verb/],
      [metrics(['apiserver_request_total{verb="\\t"} 1']), /unknown escape \\t/],
      [metrics(['apiserver_request_total{verb="a",verb="b",resource=""} 1']), /label verb twice/],
      [metrics(["apiserver_request_total{"]), /unterminated label set/],
      [
        metrics([sample(labels("GET", "pods"), "1"), sample(labels("GET", "pods"), "2")]),
        /the same series twice/,
      ],
    ];
    for (const [text, error] of refusals) {
      const parsed = parseRequestCounts(text);
      expect(parsed.ok, String(text)).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
    }
  });

  it("names three unreadable lines at most, and counts the rest", () => {
    const bad = Array.from(
      { length: 5 },
      (_, index) => `apiserver_request_total{verb="GET",resource="r${index}"} x`,
    );
    const parsed = parseRequestCounts(metrics(bad));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.match(/line \d+:/g)).toHaveLength(3);
      expect(parsed.error).toMatch(/\(and 2 more\)$/);
    }
    const long = `apiserver_request_total{verb="GET",resource="${"r".repeat(500)}"} x`;
    const quoted = parseRequestCounts(metrics([long]));
    expect(!quoted.ok && quoted.error.length).toBeLessThan(250);
  });

  it("never throws, whatever it is given, and answers counts or an error", () => {
    const fragments = fc.constantFrom(
      "apiserver_request_total",
      "{",
      "}",
      'verb="GET"',
      'resource="pods"',
      'code="200"',
      ",",
      "=",
      '"',
      "\\",
      " ",
      "\n",
      "#",
      "1",
      "-2",
      "NaN",
      "+Inf",
      "1e400",
      "\u0000",
      "\u{1F600}",
    );
    const text = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.array(fragments, { maxLength: 60 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(text, (input) => {
        const parsed = parseRequestCounts(input);
        if (parsed.ok) {
          for (const count of parsed.value.values()) {
            expect(Number.isFinite(count.count) && count.count >= 0).toBe(true);
            expect(count.notOk).toBeLessThanOrEqual(count.count);
          }
        } else expect(parsed.error).toMatch(/apiserver_request_total|\/metrics/);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(() => parseRequestCounts(input)).not.toThrow();
      }),
    );
  });
});

describe("the difference between two readings", () => {
  const before = metrics([
    sample(labels("LIST", "pods"), "10"),
    sample(labels("PATCH", "pods", "200", { subresource: "status" }), "40"),
    sample(labels("PATCH", "pods", "409", { subresource: "status" }), "1"),
    sample(labels("GET", "leases"), "500"),
  ]);

  it("gives what changed, most requests first, with the new series counted from zero", () => {
    const after = metrics([
      sample(labels("LIST", "pods"), "10"),
      sample(labels("PATCH", "pods", "200", { subresource: "status" }), "240"),
      sample(labels("PATCH", "pods", "409", { subresource: "status" }), "4"),
      sample(labels("GET", "leases"), "530"),
      sample(labels("POST", "virtualmachineinstances", "201", { group: "kubevirt.io" }), "100"),
    ]);
    const delta = requestDeltaOfTexts(before, after);
    expect(delta).toEqual({
      ok: true,
      value: {
        rows: [
          { verb: "PATCH", resource: "pods/status", count: 203, notOk: 3 },
          { verb: "POST", resource: "virtualmachineinstances", count: 100, notOk: 0 },
          { verb: "GET", resource: "leases", count: 30, notOk: 0 },
        ],
        total: 333,
        totalNotOk: 3,
      },
    });
  });

  it("says the apiserver restarted when a counter went down or vanished, and which reading was unreadable", () => {
    const restarted = metrics([sample(labels("LIST", "pods"), "2")]);
    const down = requestDeltaOfTexts(
      before,
      metrics([
        sample(labels("LIST", "pods"), "2"),
        sample(labels("PATCH", "pods", "200", { subresource: "status" }), "40"),
        sample(labels("PATCH", "pods", "409", { subresource: "status" }), "1"),
        sample(labels("GET", "leases"), "500"),
      ]),
    );
    expect(down).toEqual({
      ok: false,
      error:
        'apiserver_request_total{verb="LIST",resource="pods"} went down from 10 to 2: the apiserver restarted between the two readings',
    });
    const gone = requestDeltaOfTexts(before, metrics([sample(labels("LIST", "pods"), "12")]).concat(""));
    expect(gone.ok).toBe(false);
    expect(!gone.ok && gone.error).toMatch(/is gone from the second reading: the apiserver restarted/);
    const unreadableBefore = requestDeltaOfTexts("junk", restarted);
    expect(!unreadableBefore.ok && unreadableBefore.error).toMatch(
      /^the reading before: no apiserver_request_total/,
    );
    const unreadableAfter = requestDeltaOfTexts(before, "junk");
    expect(!unreadableAfter.ok && unreadableAfter.error).toMatch(
      /^the reading after: no apiserver_request_total/,
    );
    expect(requestDelta(new Map(), new Map())).toEqual({
      ok: true,
      value: { rows: [], total: 0, totalNotOk: 0 },
    });
  });
});

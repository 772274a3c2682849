import { describe, expect, it } from "vitest";
import { formatNotes, formatPhases, formatSlowest, summarizePhase, type ReviewOutcome } from "./report.js";

const ok = (dueMs: number, latencyMs: number, extra: Partial<ReviewOutcome> = {}): ReviewOutcome => ({
  dueMs,
  lagMs: 0,
  latencyMs,
  reusedSocket: true,
  verdict: { ok: true },
  ...extra,
});
const failed = (dueMs: number, reason: string): ReviewOutcome => ({
  dueMs,
  lagMs: 0,
  latencyMs: 10_000,
  reusedSocket: true,
  verdict: { ok: false, reason },
});

describe("admission report", () => {
  // 200 reviews at 100/s: 198 answered in 1 ms, one in 3 ms on a new connection, one in 40 ms sent late.
  const outcomes = Array.from({ length: 200 }, (_, i) => ok(i * 10, 1));
  outcomes[0] = ok(0, 3, { reusedSocket: false });
  outcomes[150] = ok(1500, 40, { lagMs: 12 });
  const summary = summarizePhase({
    webhook: "validate",
    path: "/virtualmachines-validate",
    rate: 100,
    durationMs: 2000,
    outcomes: [...outcomes, failed(2000, "HTTP 500"), failed(2010, "HTTP 500"), failed(2020, "not JSON")],
    wallMs: 2500,
  });

  it("counts sent, admitted, failed, late and new connections, and the rate achieved", () => {
    expect(summary).toMatchObject({
      sent: 203,
      ok: 200,
      failed: 3,
      late: 1,
      newConnections: 1,
      maxLagMs: 12,
    });
    expect(summary.achievedPerS).toBe(80);
    expect(summary.failures).toEqual([
      ["HTTP 500", 2],
      ["not JSON", 1],
    ]);
  });

  it("takes the percentiles of the admitted reviews only", () => {
    expect(summary.latency).toEqual({ p50: 1, p95: 1, p99: 1, max: 40 });
    expect(summary.slowest.map((o) => o.latencyMs)).toEqual([40, 3, 1, 1, 1]);
  });

  it("prints the figures against the target, the slowest reviews and the failures", () => {
    const table = formatPhases([summary]).join("\n");
    expect(table).toMatch(
      /^WEBHOOK\s+PATH\s+SENT\s+OK\s+FAILED\s+LATE\s+NEW CONN\s+REVIEWS\/s\s+P50 ms\s+P95 ms\s+P99 ms\s+MAX ms\s+P99 <= 5 ms$/m,
    );
    expect(table).toMatch(
      /^validate\s+\/virtualmachines-validate\s+203\s+200\s+3\s+1\s+1\s+80\.0\s+1\.00\s+1\.00\s+1\.00\s+40\.00\s+yes$/m,
    );
    expect(table).toMatch(/^target\s+200\s+<= 5$/m);
    const slowest = formatSlowest([summary]).join("\n");
    expect(slowest).toMatch(/^validate\s+1\.500\s+40\.00\s+12\.00$/m);
    expect(slowest).toMatch(/^validate\s+0\.000\s+3\.00\s+yes\s+0\.00$/m);
    expect(formatNotes([summary])).toEqual([
      "validate: 2 failed: HTTP 500",
      "validate: 1 failed: not JSON",
      "validate: the sender was at most 12.00 ms behind schedule",
    ]);
  });

  it("says n/a when nothing was admitted", () => {
    const none = summarizePhase({
      webhook: "mutate",
      path: "/virtualmachines-mutate",
      rate: 10,
      durationMs: 100,
      outcomes: [failed(0, "HTTP 503")],
      wallMs: 100,
    });
    expect(none.latency).toBeUndefined();
    expect(formatPhases([none]).join("\n")).toMatch(
      /^mutate\s+\/virtualmachines-mutate\s+1\s+0\s+1\s+0\s+0\s+0\.0\s+n\/a\s+n\/a\s+n\/a\s+n\/a\s+n\/a$/m,
    );
  });
});

import { formatTable, namesThenFigures } from "../common/table.js";
import { percentile } from "../common/stats.js";
import type { Webhook } from "./options.js";
import type { Verdict } from "./review.js";

// The printed figures: per webhook the reviews sent, answered and failed, the rate achieved and the
// latency percentiles of the admitted reviews against DESIGN.md's target, then the slowest reviews
// (with whether each paid for a new TLS connection) to explain the tail.

/** DESIGN.md "Targets": admission webhook latency p99 ≤ 5 ms at 200 reviews/s. */
export const TARGET_P99_MS = 5;
export const TARGET_RATE = 200;
const SLOWEST = 5;

export interface ReviewOutcome {
  /** When it was due, in ms since the measured part started. */
  dueMs: number;
  /** How late the sender sent it. */
  lagMs: number;
  latencyMs: number;
  reusedSocket: boolean;
  verdict: Verdict;
}

export interface PhaseInput {
  webhook: Webhook;
  path: string;
  rate: number;
  durationMs: number;
  outcomes: readonly ReviewOutcome[];
  /** From the first review's due time to the last answer. */
  wallMs: number;
}

export interface Latencies {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface PhaseSummary {
  webhook: Webhook;
  path: string;
  rate: number;
  durationMs: number;
  sent: number;
  ok: number;
  failed: number;
  /** Sent more than one interval (1 / rate) after their time: the offered load was not what was asked. */
  late: number;
  /** Reviews that went on a new connection (a TLS handshake first). */
  newConnections: number;
  /** Admitted reviews per second of wall time. */
  achievedPerS: number;
  /** Of the admitted reviews; undefined when none was. */
  latency: Latencies | undefined;
  maxLagMs: number;
  /** Failure reasons with their counts, the commonest first. */
  failures: [string, number][];
  slowest: ReviewOutcome[];
}

function latencies(values: readonly number[]): Latencies | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  return {
    p50: percentile(sorted, 50)!,
    p95: percentile(sorted, 95)!,
    p99: percentile(sorted, 99)!,
    max: sorted.at(-1)!,
  };
}

export function summarizePhase(input: PhaseInput): PhaseSummary {
  const intervalMs = 1000 / input.rate;
  const ok = input.outcomes.filter((o) => o.verdict.ok);
  const reasons = new Map<string, number>();
  for (const { verdict } of input.outcomes) {
    if (!verdict.ok) reasons.set(verdict.reason, (reasons.get(verdict.reason) ?? 0) + 1);
  }
  return {
    webhook: input.webhook,
    path: input.path,
    rate: input.rate,
    durationMs: input.durationMs,
    sent: input.outcomes.length,
    ok: ok.length,
    failed: input.outcomes.length - ok.length,
    late: input.outcomes.filter((o) => o.lagMs > intervalMs).length,
    newConnections: input.outcomes.filter((o) => !o.reusedSocket).length,
    achievedPerS: input.wallMs > 0 ? ok.length / (input.wallMs / 1000) : 0,
    latency: latencies(ok.map((o) => o.latencyMs)),
    maxLagMs: Math.max(0, ...input.outcomes.map((o) => o.lagMs)),
    failures: [...reasons].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    slowest: [...ok].sort((a, b) => b.latencyMs - a.latencyMs).slice(0, SLOWEST),
  };
}

const ms = (value: number | undefined): string => (value === undefined ? "n/a" : value.toFixed(2));

export const LEGEND = [
  "latencies of the admitted reviews, from the request's start to the answer's last byte (nearest-rank percentiles);",
  "LATE: sent more than one interval (1 / rate) behind schedule; NEW CONN: reviews that opened a connection (TLS handshake)",
];

export function formatPhases(phases: readonly PhaseSummary[]): string[] {
  const header = ["WEBHOOK", "PATH", "SENT", "OK", "FAILED", "LATE", "NEW CONN", "REVIEWS/s"];
  header.push("P50 ms", "P95 ms", "P99 ms", "MAX ms", `P99 <= ${TARGET_P99_MS} ms`);
  const body = phases.map((phase) => [
    phase.webhook,
    phase.path,
    String(phase.sent),
    String(phase.ok),
    String(phase.failed),
    String(phase.late),
    String(phase.newConnections),
    phase.achievedPerS.toFixed(1),
    ms(phase.latency?.p50),
    ms(phase.latency?.p95),
    ms(phase.latency?.p99),
    ms(phase.latency?.max),
    phase.latency === undefined ? "n/a" : phase.latency.p99 <= TARGET_P99_MS ? "yes" : "no",
  ]);
  const target = ["target", "", "", "", "", "", "", `${TARGET_RATE}`, "", "", `<= ${TARGET_P99_MS}`, "", ""];
  return formatTable([[header], body, [target]], namesThenFigures(2, header.length));
}

export function formatSlowest(phases: readonly PhaseSummary[]): string[] {
  const header = ["WEBHOOK", "AT s", "LATENCY ms", "NEW CONN", "SENT LATE BY ms"];
  const body = phases.flatMap((phase) =>
    phase.slowest.map((o) => [
      phase.webhook,
      (o.dueMs / 1000).toFixed(3),
      ms(o.latencyMs),
      o.reusedSocket ? "" : "yes",
      ms(o.lagMs),
    ]),
  );
  return formatTable([[header], body], namesThenFigures(1, header.length));
}

/** One line per failure reason, and how late the sender ever was. */
export function formatNotes(phases: readonly PhaseSummary[]): string[] {
  const lines: string[] = [];
  for (const phase of phases) {
    for (const [reason, count] of phase.failures) lines.push(`${phase.webhook}: ${count} failed: ${reason}`);
    lines.push(`${phase.webhook}: the sender was at most ${ms(phase.maxLagMs)} ms behind schedule`);
  }
  return lines;
}

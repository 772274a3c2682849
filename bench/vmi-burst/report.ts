import { percentile } from "../common/stats.js";
import { formatTable, namesThenFigures } from "../common/table.js";
import type { RequestDelta } from "./apiserver-metrics.js";
import type { TimedPhase, VmiResult } from "./burst-state.js";

// The printed figures: per-VMI latencies as p50 / p95 / max against DESIGN.md's target and upstream's
// figures, the VMIs that did not reach Running by name, and the apiserver's requests per VMI.

/** DESIGN.md "Targets": VMI create → Running over a 100-VMI burst, p95 ≤ 5 s on the local cluster. */
export const TARGET_P95_S = 5;
/** Upstream's sig-performance runs of the same burst. */
export const UPSTREAM_P50_S = 18;
export const UPSTREAM_P95_S = 28;

export interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank p50 / p95 and the max (values that were measured); undefined without values. */
export function percentiles(values: readonly number[]): Percentiles | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50)!,
    p95: percentile(sorted, 95)!,
    max: sorted.at(-1)!,
  };
}

export const seconds = (value: number | undefined, digits: number): string =>
  value === undefined ? "n/a" : value.toFixed(digits);

export const LEGEND = [
  "VMI timestamps: status.phaseTransitionTimestamps - metadata.creationTimestamp, as upstream's sig-performance job reads",
  "them: server-side, whole seconds on both ends (each figure within 1 s); watch: from sending the creation to the first",
  "watch event showing the phase (or a later one), this process's clock; POST answered: the creation's round trip",
  "through the apiserver and virt-api's admission webhooks. COUNT: the VMIs with that figure",
];

interface LatencyRow {
  name: string;
  pick: (result: VmiResult) => number | undefined;
  digits: number;
}

const server = (phase: TimedPhase) => (result: VmiResult) => result.server[phase];
const watch = (phase: TimedPhase) => (result: VmiResult) => result.watch[phase];

const LATENCIES: readonly LatencyRow[] = [
  { name: "create -> Scheduled, VMI timestamps", pick: server("Scheduled"), digits: 0 },
  { name: "create -> Running, VMI timestamps", pick: server("Running"), digits: 0 },
  { name: "sent -> Scheduled, watch", pick: watch("Scheduled"), digits: 2 },
  { name: "sent -> Running, watch", pick: watch("Running"), digits: 2 },
  { name: "sent -> POST answered", pick: (result) => result.createS, digits: 3 },
];

const measured = (results: readonly VmiResult[], pick: LatencyRow["pick"]): number[] =>
  results.map(pick).filter((value): value is number => value !== undefined);

export function formatLatencies(results: readonly VmiResult[]): string[] {
  const header = [`${results.length} VMIs`, "COUNT", "P50 s", "P95 s", "MAX s"];
  const body = LATENCIES.map(({ name, pick, digits }) => {
    const p = percentiles(measured(results, pick));
    return [
      name,
      String(p?.count ?? 0),
      seconds(p?.p50, digits),
      seconds(p?.p95, digits),
      seconds(p?.max, digits),
    ];
  });
  return formatTable([[header], body], namesThenFigures(1, header.length));
}

/** The target's line: the p95 of create -> Running (VMI timestamps), unmet while any VMI did not run. */
export function formatVerdict(results: readonly VmiResult[]): string[] {
  const p = percentiles(measured(results, server("Running")));
  const missing = results.filter((result) => !result.reachedRunning).length;
  const target = `target (DESIGN.md): create -> Running p95 <= ${TARGET_P95_S} s over a 100-VMI burst`;
  let verdict: string;
  if (missing > 0) verdict = `not met: ${missing} of ${results.length} VMIs did not reach Running`;
  else if (!p) verdict = "n/a: no VMI has a Running timestamp";
  else if (p.p95 <= TARGET_P95_S) verdict = `within, ${seconds(TARGET_P95_S - p.p95, 0)} s to spare`;
  else verdict = `over by ${seconds(p.p95 - TARGET_P95_S, 0)} s`;
  const measuredP95 = p ? `p95 ${seconds(p.p95, 0)} s (VMI timestamps of ${p.count} VMIs)` : "no p95";
  return [
    `${target}; here, ${results.length} VMIs: ${measuredP95}: ${verdict}`,
    `upstream (sig-performance, 100-VMI burst): create -> Running p50 ≈ ${UPSTREAM_P50_S} s, p95 ≈ ${UPSTREAM_P95_S} s`,
  ];
}

/** Every VMI that did not reach Running, by name: its creation's error, or its phase and why. */
export function formatNotRunning(results: readonly VmiResult[]): string[] {
  const missing = results.filter((result) => !result.reachedRunning);
  if (missing.length === 0) return [];
  const header = ["VMI", "PHASE", "WHY"];
  const body = missing.map((result) =>
    result.createError !== undefined
      ? [result.name, "(not created)", result.createError]
      : [result.name, result.phase ?? "(none seen)", result.why ?? "no condition says"],
  );
  return [
    `${missing.length} of ${results.length} VMIs did not reach Running:`,
    ...formatTable([[header], body], namesThenFigures(3, header.length)),
  ];
}

/** Whether the VMIs ran as the mode says: paused (the stand-in) or not (--boot). */
export function formatPausedCheck(results: readonly VmiResult[], boot: boolean): string {
  const running = results.filter((result) => result.reachedRunning);
  const paused = running.filter((result) => result.paused).length;
  const line = `${paused} of ${running.length} VMIs that reached Running carry the Paused condition`;
  if (boot)
    return paused === 0
      ? line
      : `${line}: with --boot none should; the figures are not those of booting guests`;
  return paused === running.length
    ? `${line}, as spec.startStrategy: Paused asks`
    : `${line}: the others' guests booted, so the figures are not the stand-in's alone`;
}

export const REQUESTS_LEGEND = [
  "apiserver_request_total of the kube-apiserver's /metrics (kubectl get --raw /metrics) after the burst minus before it,",
  "per verb and resource (subresource after a /; a path for non-resource URLs): every client's requests the apiserver",
  "finished in that window: KubeVirt's, the scheduler's, the node agents', leader leases' renewals, and this benchmark's",
  "(one POST virtualmachineinstances per VMI; its watch of them is counted when it ends, after the second reading).",
  "A WATCH counts when it ends. PER VMI: REQUESTS / the VMIs created; NOT 2xx: answered otherwise (409 Conflict ...)",
];

export function formatRequests(delta: RequestDelta, vmis: number): string[] {
  const perVmi = (count: number): string => (vmis > 0 ? (count / vmis).toFixed(2) : "n/a");
  const header = ["VERB", "RESOURCE", "REQUESTS", "PER VMI", "NOT 2xx"];
  const body = delta.rows.map((row) => [
    row.verb,
    row.resource || "(none)",
    String(row.count),
    perVmi(row.count),
    String(row.notOk),
  ]);
  const sum = [["all", "", String(delta.total), perVmi(delta.total), String(delta.totalNotOk)]];
  return formatTable([[header], body, sum], namesThenFigures(2, header.length));
}

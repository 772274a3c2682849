import { formatTable, namesThenFigures, spreadRow } from "../common/table.js";
import { comparePhases, type PhaseTime } from "./timestamps.js";

// The printed figures: one row per migration, the phases' timestamps, and min / median / max next to
// DESIGN.md's targets.

/** DESIGN.md "Targets": live migration of an idle small guest between the two nodes (TCG). */
export const TARGET_COMPLETION_S = 10;
export const TARGET_DOWNTIME_S = 1;

export interface RunResult {
  run: number;
  migration: string;
  sourceNode: string;
  targetNode: string;
  /** vmi.status.migrationState startTimestamp → endTimestamp: whole seconds, undefined when unset. */
  startToEndS: number | undefined;
  /** From starting `virtctl migrate` to the first poll that saw the migration Succeeded. */
  wallS: number;
  /** The mean time between those polls: the wall time's resolution. */
  pollS: number;
  /** The part of the wall time `virtctl migrate` took to return. */
  virtctlS: number;
  /** The migration object's phase transitions, in seconds since it was created. */
  phases: PhaseTime[];
  downtimeS: number;
  /** One `true` on the serial console: the error bar of the downtime. */
  consoleRttS: number;
}

/** What the columns of formatRuns measure. */
export const LEGEND = [
  "START->END: the VMI's migrationState timestamps (whole seconds); WALL: from starting `virtctl migrate`",
  "until a poll saw the migration Succeeded (POLL: the polls' period; VIRTCTL: until virtctl returned);",
  "DOWNTIME: what the guest's clock lost against the host's, within about one console round trip (± CONSOLE)",
];

export const seconds = (value: number | undefined, digits = 3): string =>
  value === undefined ? "n/a" : value.toFixed(digits);

export function formatRuns(runs: readonly RunResult[]): string[] {
  const header = [
    "RUN",
    "MIGRATION",
    "NODES",
    "START->END s",
    "WALL s",
    "POLL s",
    "VIRTCTL s",
    "DOWNTIME s",
    "± CONSOLE s",
  ];
  const body = runs.map((run) => [
    String(run.run),
    run.migration,
    `${run.sourceNode} -> ${run.targetNode}`,
    seconds(run.startToEndS, 0),
    seconds(run.wallS),
    seconds(run.pollS),
    seconds(run.virtctlS),
    seconds(run.downtimeS),
    seconds(run.consoleRttS),
  ]);
  return formatTable([[header], body], namesThenFigures(3, header.length));
}

/** Seconds from the migration object's creation to each phase (whole seconds, as the API keeps them). */
export function formatPhases(runs: readonly RunResult[]): string[] {
  const phases = [...new Set(runs.flatMap((run) => run.phases.map((time) => time.phase)))].sort(
    comparePhases,
  );
  const header = ["RUN", ...phases];
  const body = runs.map((run) => [
    String(run.run),
    ...phases.map((phase) => seconds(run.phases.find((time) => time.phase === phase)?.seconds, 0)),
  ]);
  return formatTable([[header], body], namesThenFigures(1, header.length));
}

/** The summary's figures: each picked from a run, its digits, its target. */
const SUMMARY: readonly (readonly [string, (run: RunResult) => number | undefined, number, string])[] = [
  ["completion, start->end s", (run) => run.startToEndS, 1, `<= ${TARGET_COMPLETION_S}`],
  ["completion, wall s", (run) => run.wallS, 3, `<= ${TARGET_COMPLETION_S}`],
  ["guest downtime s", (run) => run.downtimeS, 3, `<= ${TARGET_DOWNTIME_S}`],
  ["± console round trip s", (run) => run.consoleRttS, 3, ""],
];

export function formatSummary(runs: readonly RunResult[]): string[] {
  const header = [`${runs.length} runs`, "MIN", "MEDIAN", "MAX", "TARGET"];
  const body = SUMMARY.map(([name, pick, digits, target]) =>
    spreadRow(name, runs.map(pick), (value) => seconds(value, digits), target),
  );
  return formatTable([[header], body], namesThenFigures(1, header.length));
}

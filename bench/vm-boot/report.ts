import { spread } from "../common/stats.js";
import { formatTable, namesThenFigures, spreadRow } from "../common/table.js";
import { CREATED, VMI_PHASES, type PhaseTime } from "../common/vmi-phases.js";

// The printed figures: each run's two boots, then min / median / max and the medians against DESIGN.md's
// target (apply → guest serial console answers ≤ 1.5 × the bare QEMU boot of the same guest + 2 s).

export const TARGET_FACTOR = 1.5;
export const TARGET_SLACK_S = 2;

export interface BootFigures {
  /** Seconds from the start (QEMU's, or kubectl apply's) to the prompt, and to the typed command's answer. */
  promptS: number;
  answerS: number;
  /** The guest's uptime when it answered: the part of answerS the guest itself ran. */
  uptimeS: number;
}

export interface VmBootFigures extends BootFigures {
  /** Until kubectl apply returned, and until virtctl console said it connected. */
  applyS: number;
  connectedS: number | undefined;
  phases: PhaseTime[];
}

export interface RunResult {
  run: number;
  bareFirst: boolean;
  bare: BootFigures;
  vm: VmBootFigures;
}

export const LEGEND = [
  "seconds from QEMU's start (bare) or from starting `kubectl apply` (VM): PROMPT: the guest's root prompt seen on the",
  "serial console (Enter pressed every 0.25 s), ANSWER: a typed command's answer, which the serial console answers;",
  "GUEST UPTIME: the guest's /proc/uptime in that answer, BEFORE GUEST: ANSWER - GUEST UPTIME, what came before the",
  "guest's kernel (VM: the control plane, the launcher pod, libvirt, QEMU; both: firmware and boot loader);",
  "CONNECTED: `virtctl console` connected (it is started again while the VMI does not exist yet)",
];

export const seconds = (value: number | undefined, digits = 2): string =>
  value === undefined ? "n/a" : value.toFixed(digits);

export function formatRuns(runs: readonly RunResult[]): string[] {
  const header = [
    "RUN",
    "BOOT",
    "APPLY s",
    "CONNECTED s",
    "PROMPT s",
    "ANSWER s",
    "GUEST UPTIME s",
    "BEFORE GUEST s",
  ];
  const row = (run: RunResult, kind: "bare" | "VM"): string[] => {
    const boot = kind === "bare" ? run.bare : run.vm;
    return [
      String(run.run),
      kind,
      kind === "VM" ? seconds(run.vm.applyS) : "",
      kind === "VM" ? seconds(run.vm.connectedS) : "",
      seconds(boot.promptS),
      seconds(boot.answerS),
      seconds(boot.uptimeS),
      seconds(boot.answerS - boot.uptimeS),
    ];
  };
  const body = runs.flatMap((run) =>
    run.bareFirst ? [row(run, "bare"), row(run, "VM")] : [row(run, "VM"), row(run, "bare")],
  );
  return formatTable([[header], body], namesThenFigures(2, header.length));
}

/** The VM's way to its answer: the VMI's phases (whole-second timestamps), the console's connection, the answer. */
export function formatVmTimeline(runs: readonly RunResult[]): string[] {
  const known: readonly string[] = [CREATED, ...VMI_PHASES];
  const extra = [...new Set(runs.flatMap((run) => run.vm.phases.map((p) => p.phase)))].filter(
    (phase) => !known.includes(phase),
  );
  const phases = [...known, ...extra];
  const header = [
    "RUN",
    ...phases.map((phase) => (phase === CREATED ? "VMI CREATED" : phase)),
    "CONNECTED",
    "ANSWER",
  ];
  const body = runs.map((run) => [
    String(run.run),
    ...phases.map((phase) => seconds(run.vm.phases.find((p) => p.phase === phase)?.seconds, 1)),
    seconds(run.vm.connectedS, 1),
    seconds(run.vm.answerS, 1),
  ]);
  return formatTable([[header], body], namesThenFigures(1, header.length));
}

export interface Verdict {
  bareMedianS: number;
  vmMedianS: number;
  /** 1.5 × the bare median + 2 s. */
  targetS: number;
  ratio: number;
  within: boolean;
}

export function verdict(runs: readonly RunResult[]): Verdict | undefined {
  const bare = spread(runs.map((run) => run.bare.answerS));
  const vm = spread(runs.map((run) => run.vm.answerS));
  if (!bare || !vm) return undefined;
  const targetS = TARGET_FACTOR * bare.median + TARGET_SLACK_S;
  return {
    bareMedianS: bare.median,
    vmMedianS: vm.median,
    targetS,
    ratio: vm.median / bare.median,
    within: vm.median <= targetS,
  };
}

/** The summary's figures, each picked from a run. */
const SUMMARY: readonly (readonly [string, (run: RunResult) => number])[] = [
  ["bare QEMU, answer s", (run) => run.bare.answerS],
  ["VM, answer s", (run) => run.vm.answerS],
  ["VM / bare", (run) => run.vm.answerS / run.bare.answerS],
  ["bare QEMU, guest uptime s", (run) => run.bare.uptimeS],
  ["VM, guest uptime s", (run) => run.vm.uptimeS],
  [
    "VM - bare, before the guest s",
    (run) => run.vm.answerS - run.vm.uptimeS - (run.bare.answerS - run.bare.uptimeS),
  ],
];

export function formatSummary(runs: readonly RunResult[]): string[] {
  const header = [`${runs.length} runs`, "MIN", "MEDIAN", "MAX"];
  const body = SUMMARY.map(([name, pick]) => spreadRow(name, runs.map(pick), (value) => seconds(value)));
  const lines = formatTable([[header], body], namesThenFigures(1, header.length));
  const v = verdict(runs);
  if (v) {
    lines.push("");
    lines.push(
      `target: VM <= ${TARGET_FACTOR} x bare + ${TARGET_SLACK_S} s = ${seconds(v.targetS)} s (medians); ` +
        `VM ${seconds(v.vmMedianS)} s, ${v.ratio.toFixed(2)} x bare: ` +
        (v.within
          ? `within, ${seconds(v.targetS - v.vmMedianS)} s to spare`
          : `over by ${seconds(v.vmMedianS - v.targetS)} s`),
    );
  }
  return lines;
}

import path from "node:path";
import { formatTable, namesThenFigures } from "../common/table.js";
import type { PodProcess } from "../common/pod-processes.js";
import type { ProcessSample } from "../common/proc.js";

// Turns the sampled processes of a launcher pod into the printed table and sums. QEMU is left out of the
// sum (it is the guest, not overhead) and printed on its own for reference.

/** DESIGN.md "Targets": all launcher-pod processes except qemu. */
export const TARGET_MIB = 64;
/** Upstream's budget for the same processes: launcher 100, monitor 25, virtlogd 25, virtqemud 40. */
export const UPSTREAM_BUDGET_MIB = 190;

export interface Row extends ProcessSample {
  container: string;
  command: string;
  qemu: boolean;
}

export interface Totals {
  count: number;
  rssKiB: number;
  /** Undefined when some process's PSS could not be read. */
  pssKiB: number | undefined;
}

export interface Summary {
  rows: Row[];
  withoutQemu: Totals;
  qemu: Totals;
}

export function isQemu(sample: Pick<ProcessSample, "comm" | "argv">): boolean {
  const program = path.basename(sample.argv[0] ?? "");
  return program.startsWith("qemu-system") || sample.comm.startsWith("qemu-system");
}

/**
 * A short name: the program, for Node the binary it runs (cmd/<name>/main.ts, or its bundle
 * dist/components/bin/<name>.mjs), for the agent's shell "sh (supervisor)".
 */
export function shortCommand(sample: Pick<ProcessSample, "comm" | "argv">, supervisor = false): string {
  const program = sample.argv[0];
  if (program === undefined) return `[${sample.comm}]`;
  const name = path.basename(program);
  if (supervisor) return `${name} (supervisor)`;
  if (name === "node" || sample.comm === "node") {
    for (const arg of sample.argv.slice(1)) {
      const cmd =
        /(?:^|\/)cmd\/([^/]+)\/main\.[cm]?[jt]s$/.exec(arg) ??
        /(?:^|\/)components\/bin\/([^/]+)\.mjs$/.exec(arg);
      if (cmd) return `node ${cmd[1]}`;
    }
    const script = sample.argv.slice(1).find((arg) => !arg.startsWith("-") && /\.[cm]?[jt]s$/.test(arg));
    return script ? `node ${path.basename(script)}` : "node";
  }
  return name;
}

function total(rows: readonly Row[]): Totals {
  let pss: number | undefined = 0;
  for (const row of rows) pss = pss === undefined || row.pssKiB === undefined ? undefined : pss + row.pssKiB;
  return { count: rows.length, rssKiB: rows.reduce((sum, row) => sum + row.rssKiB, 0), pssKiB: pss };
}

export function summarize(
  processes: readonly PodProcess[],
  samples: ReadonlyMap<number, ProcessSample>,
): Summary {
  const rows: Row[] = [];
  for (const process of processes) {
    const sample = samples.get(process.pid);
    if (!sample) continue;
    rows.push({
      ...sample,
      container: process.container,
      command: shortCommand(sample, process.supervisor),
      qemu: isQemu(sample),
    });
  }
  rows.sort((a, b) => a.container.localeCompare(b.container) || a.pid - b.pid);
  return {
    rows,
    withoutQemu: total(rows.filter((row) => !row.qemu)),
    qemu: total(rows.filter((row) => row.qemu)),
  };
}

export const mib = (kib: number | undefined): string => (kib === undefined ? "n/a" : (kib / 1024).toFixed(1));

export function formatReport(summary: Summary): string[] {
  const header = ["PID", "CONTAINER", "COMMAND", "RSS MiB", "PSS MiB"];
  const body = summary.rows.map((row) => [
    String(row.pid),
    row.container,
    row.qemu ? `${row.command} *` : row.command,
    mib(row.rssKiB),
    mib(row.pssKiB),
  ]);
  const { withoutQemu, qemu } = summary;
  const footer = [
    [
      "",
      "",
      `sum without qemu (${withoutQemu.count} processes)`,
      mib(withoutQemu.rssKiB),
      mib(withoutQemu.pssKiB),
    ],
    ["", "", `* qemu, for reference (${qemu.count})`, mib(qemu.rssKiB), mib(qemu.pssKiB)],
    ["", "", "target (sum without qemu, RSS)", `<= ${TARGET_MIB}`, ""],
    ["", "", "upstream budget", String(UPSTREAM_BUDGET_MIB), ""],
  ];
  return formatTable([[header], body, footer], namesThenFigures(3, header.length));
}

import { shortCommand } from "../launcher-overhead/report.js";
import { formatTable, namesThenFigures } from "../common/table.js";
import { TARGET_MIB, UPSTREAM_MB } from "./pods.js";
import type { PodFigures } from "./tracker.js";

// The printed figures: per component pod its memory and CPU over the idle window against DESIGN.md's
// idle RSS targets, and, with --during, its peak memory and CPU while the command ran.

export const mib = (kib: number | undefined): string => (kib === undefined ? "n/a" : (kib / 1024).toFixed(1));

const cpu = (ticks: number, hz: number): string => (ticks / hz).toFixed(2);
const percent = (ticks: number, hz: number, elapsedMs: number): string =>
  elapsedMs > 0 ? ((ticks / hz / (elapsedMs / 1000)) * 100).toFixed(1) : "n/a";

const podName = (figures: PodFigures): string =>
  `${figures.pod.name}${figures.pod.leader ? " (leader)" : ""}`;
const pids = (figures: PodFigures): string => figures.processes.map((p) => p.pid).join(",") || "-";
const commands = (figures: PodFigures): string =>
  [...new Set(figures.processes.map((p) => shortCommand(p)))].join(", ") || "(none found)";

export const IDLE_LEGEND = [
  "RSS: VmRSS at the window's end, MAX RSS: the highest any sampling round saw, PSS: Pss of smaps_rollup at the end",
  "(shared pages split); CPU: utime + stime over the window; each pod's processes but the node agent's supervising shell",
];

export function formatIdle(pods: readonly PodFigures[], hz: number, elapsedMs: number): string[] {
  const header = ["COMPONENT", "POD", "NODE", "PID", "COMMAND", "RSS MiB", "MAX RSS MiB", "PSS MiB"];
  header.push("CPU s", "CPU %", "TARGET MiB", "RSS <= TARGET", "UPSTREAM MB");
  const body = pods.map((figures) => {
    const target = TARGET_MIB[figures.pod.component];
    const found = figures.processes.length > 0;
    return [
      figures.pod.component,
      podName(figures),
      figures.pod.node,
      pids(figures),
      commands(figures),
      found ? mib(figures.lastRssKiB) : "n/a",
      found ? mib(figures.maxRssKiB) : "n/a",
      mib(figures.lastPssKiB),
      found ? cpu(figures.cpuTicks, hz) : "n/a",
      found ? percent(figures.cpuTicks, hz, elapsedMs) : "n/a",
      `<= ${target}`,
      found ? (figures.lastRssKiB / 1024 <= target ? "yes" : "no") : "n/a",
      String(UPSTREAM_MB[figures.pod.component] ?? ""),
    ];
  });
  return formatTable([[header], body], namesThenFigures(5, header.length));
}

export const DURING_LEGEND = [
  "BEFORE: RSS when the command started; PEAK: the highest RSS a round saw; VmHWM: the kernel's high-water mark",
  "at the end (* it rose while the command ran, so it is the exact peak); CPU: utime + stime while it ran",
];

export function formatDuring(pods: readonly PodFigures[], hz: number, elapsedMs: number): string[] {
  const header = ["COMPONENT", "POD", "NODE", "BEFORE MiB", "PEAK MiB", "VmHWM MiB", "CPU s", "CPU %"];
  const body = pods.map((figures) => [
    figures.pod.component,
    podName(figures),
    figures.pod.node,
    mib(figures.processes.reduce((sum, p) => sum + (p.fromStart ? p.firstRssKiB : 0), 0)),
    mib(figures.maxRssKiB),
    `${mib(figures.hwmKiB)}${figures.hwmRose ? " *" : ""}`,
    cpu(figures.cpuTicks, hz),
    percent(figures.cpuTicks, hz, elapsedMs),
  ]);
  return formatTable([[header], body], namesThenFigures(3, header.length));
}

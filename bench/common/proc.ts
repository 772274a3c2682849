import { execFile } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { parseStat } from "../../pkg/util/proc-stat.js";

export { parseStat, type StatFields } from "../../pkg/util/proc-stat.js";

// What the benchmarks read about one process from a /proc tree (the real one, or a fake in tests).
// RSS comes from status (VmRSS), PSS from smaps_rollup: Node processes share many file pages, so RSS
// counts those pages once per process while PSS splits them between the processes mapping them. CPU
// time is stat's utime + stime, in clock ticks.

export interface ProcessSample {
  pid: number;
  ppid: number;
  /** The kernel's 15-character command name (/proc/<pid>/comm, the name in stat). */
  comm: string;
  argv: string[];
  rssKiB: number;
  /** Undefined when smaps_rollup is missing or unreadable. */
  pssKiB: number | undefined;
  /** VmHWM: the highest RSS the process ever had (0 where status has none). */
  hwmKiB: number;
  /** Field 22 of stat: with the PID, what names this process and no later one reusing its PID. */
  startTicks: number;
  /** utime + stime of stat (fields 14 and 15): CPU time in user and kernel mode, in clock ticks. */
  cpuTicks: number;
}

/** utime + stime of a /proc/<pid>/stat text, counted from the last ")" as parseStat does. */
export function parseCpuTicks(text: string): number {
  const close = text.lastIndexOf(")");
  const rest = text.slice(close + 2).split(" ");
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const ticks = Number(rest[14 - 3]) + Number(rest[15 - 3]);
  if (close < 0 || !Number.isInteger(ticks)) throw new Error("unreadable /proc/<pid>/stat");
  return ticks;
}

/** A `Key:   1234 kB` line of /proc/<pid>/status or smaps_rollup, in KiB; undefined when absent. */
export function parseKiBField(text: string, key: string): number | undefined {
  const match = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, "m").exec(text);
  return match ? Number(match[1]) : undefined;
}

export function parseCmdline(raw: string): string[] {
  return raw.split("\0").filter((arg, index, all) => arg !== "" || index < all.length - 1);
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, "utf8").catch(() => undefined);
}

/**
 * One process, or undefined when it is gone (or was a zombie) by the time it is read. `pss: false` skips
 * smaps_rollup, whose reading walks the process's page tables: for frequent samples of big processes.
 */
export async function sampleProcess(
  procRoot: string,
  pid: number,
  options: { pss?: boolean } = {},
): Promise<ProcessSample | undefined> {
  const dir = path.join(procRoot, String(pid));
  const [statText, statusText, cmdline, rollup] = await Promise.all([
    readText(path.join(dir, "stat")),
    readText(path.join(dir, "status")),
    readText(path.join(dir, "cmdline")),
    options.pss === false ? undefined : readText(path.join(dir, "smaps_rollup")),
  ]);
  if (statText === undefined || statusText === undefined) return undefined;
  const stat = parseStat(statText);
  if (stat.state === "Z") return undefined;
  return {
    pid,
    ppid: stat.ppid,
    comm: stat.comm,
    argv: parseCmdline(cmdline ?? ""),
    // Kernel threads and exiting processes have no VmRSS line: they hold no user memory.
    rssKiB: parseKiBField(statusText, "VmRSS") ?? 0,
    pssKiB: rollup === undefined ? undefined : parseKiBField(rollup, "Pss"),
    hwmKiB: parseKiBField(statusText, "VmHWM") ?? 0,
    startTicks: stat.startTicks,
    cpuTicks: parseCpuTicks(statText),
  };
}

/** /proc/<pid>/schedstat (its main thread): time run on a CPU, time waited on a run queue, timeslices. */
export interface Schedstat {
  runNs: number;
  waitNs: number;
  slices: number;
}

export function parseSchedstat(text: string): Schedstat {
  const [runNs, waitNs, slices] = text.trim().split(/\s+/).map(Number);
  if (![runNs, waitNs, slices].every((n) => Number.isInteger(n))) throw new Error("unreadable schedstat");
  return { runNs: runNs!, waitNs: waitNs!, slices: slices! };
}

/** The main thread's schedstat (a Node process's event loop), or undefined when it is gone. */
export async function readSchedstat(procRoot: string, pid: number): Promise<Schedstat | undefined> {
  const text = await readText(path.join(procRoot, String(pid), "schedstat"));
  if (text === undefined) return undefined;
  try {
    return parseSchedstat(text);
  } catch {
    return undefined;
  }
}

/** The start time of a process (to check a recorded PID still names the recorded process). */
export async function startTicksOf(procRoot: string, pid: number): Promise<number | undefined> {
  const text = await readText(path.join(procRoot, String(pid), "stat"));
  if (text === undefined) return undefined;
  try {
    return parseStat(text).startTicks;
  } catch {
    return undefined;
  }
}

/** `roots` and every process below them, found by each process's parent PID in stat. */
export async function descendants(procRoot: string, roots: readonly number[]): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir(procRoot).catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readText(path.join(procRoot, entry, "stat"));
    if (text === undefined) continue;
    let ppid: number;
    try {
      ppid = parseStat(text).ppid;
    } catch {
      continue;
    }
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const seen = new Set<number>();
  const queue = [...roots];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (seen.has(pid)) continue;
    seen.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...seen];
}

/** The kernel's clock ticks per second (USER_HZ), in which stat counts CPU time: `getconf CLK_TCK`. */
export async function clockTicksPerSecond(): Promise<number> {
  const { stdout } = await promisify(execFile)("getconf", ["CLK_TCK"]);
  const hz = Number(stdout.trim());
  if (!Number.isInteger(hz) || hz <= 0) throw new Error(`getconf CLK_TCK printed ${JSON.stringify(stdout)}`);
  return hz;
}

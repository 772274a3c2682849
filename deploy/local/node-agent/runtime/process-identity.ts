import { readFile } from "node:fs/promises";
import { parseStat } from "../../../../pkg/util/proc-stat.js";

// A process is identified by its PID plus its start time (field 22 of /proc/<pid>/stat, in clock ticks
// since boot): PIDs are reused, the pair is not. Signals go to a recorded process only after checking it.

export interface ProcessIdentity {
  pid: number;
  startTicks: number;
}

/** Parses the start time out of /proc/<pid>/stat; the command name may hold spaces and parentheses. */
export function parseStartTicks(stat: string): number {
  return parseStat(stat).startTicks;
}

export async function readStartTicks(pid: number): Promise<number | undefined> {
  try {
    return parseStartTicks(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

export async function identify(pid: number): Promise<ProcessIdentity | undefined> {
  const startTicks = await readStartTicks(pid);
  return startTicks === undefined ? undefined : { pid, startTicks };
}

/** Whether the recorded process still runs (a zombie counts as gone). */
export async function isAlive(identity: ProcessIdentity): Promise<boolean> {
  try {
    const stat = parseStat(await readFile(`/proc/${identity.pid}/stat`, "utf8"));
    return stat.state !== "Z" && stat.startTicks === identity.startTicks;
  } catch {
    return false;
  }
}

/** The direct children of a process, from /proc/<pid>/task/<pid>/children. */
export async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  return text
    .split(" ")
    .filter((word) => /^\d+$/.test(word))
    .map(Number);
}

/** Sends a signal to a process group, ignoring a group that is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

// Test helper: processes by PID, read from /proc.
import { readdirSync, readFileSync } from "node:fs";

export function isAlive(pid: number): boolean {
  try {
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}

/** Resident set size in KiB. */
export function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : 0;
}

/** Proportional set size in KiB: shared pages (the node binary, libraries) divided among their users. */
export function pssKiB(pid: number): number {
  const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return match ? Number(match[1]) : 0;
}

export function commandName(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
}

/** `pid` and every process below it, by parent links. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces; the parent pid follows it.
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), parent);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

/** Processes named `name` whose environment has `key=value` (daemons that left their parent's tree). */
export function processesWithEnv(name: string, key: string, value: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== name) continue;
      const environment = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (environment.includes(`${key}=${value}`)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

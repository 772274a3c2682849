// Starts the cluster's long-running processes in the background and stops them again, knowing
// each one only by the PID recorded in `.local/pids/<name>.pid` (with its start time, so a PID
// reused by an unrelated process after a reboot is never mistaken for ours).
import { spawn } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { ProcessTree } from "./cgroup.js";
import {
  createProcessTree,
  enterAndExecScript,
  killMembers,
  membersOf,
  processTree,
  removeProcessTree,
} from "./cgroup.js";
import type { Layout } from "./layout.js";
import { logFile, pidFile } from "./layout.js";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

interface PidRecord {
  pid: number;
  startTime: string;
}

/** Starts `spec` detached, output appended to `.local/logs/<name>.log`; returns its PID. */
export async function startProcess(l: Layout, spec: ProcessSpec): Promise<number> {
  await mkdir(l.logsDir, { recursive: true });
  await mkdir(l.pidsDir, { recursive: true });
  const tree = await processTree(l.stateDir, spec.name);
  const inTree = tree !== undefined && (await createProcessTree(tree));
  const [command, args] = inTree
    ? ["/bin/sh", ["-c", enterAndExecScript, `${tree.dir}/cgroup.procs`, spec.command, ...spec.args]]
    : [spec.command, spec.args];

  const log = openSync(logFile(l, spec.name), "a");
  try {
    const child = spawn(command, args, {
      cwd: spec.cwd ?? l.repoRoot,
      env: spec.env ?? process.env,
      detached: true, // its own session: a Ctrl-C on `make up` does not take the cluster down
      stdio: ["ignore", log, log],
    });
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
    await writeFile(pidFile(l, spec.name), `${pid}\n${await startTimeOf(pid)}\n`);
    return pid;
  } finally {
    closeSync(log);
  }
}

/** The PID of `name` if the process recorded for it is still alive. */
export async function runningPid(l: Layout, name: string): Promise<number | undefined> {
  return (await runningRecord(l, name))?.pid;
}

async function runningRecord(l: Layout, name: string): Promise<PidRecord | undefined> {
  const record = await readPidRecord(pidFile(l, name));
  if (!record) return undefined;
  return (await isAlive(record)) ? record : undefined;
}

/**
 * SIGTERM, up to `graceMs` for it to exit, then SIGKILL (at once when `graceMs` is 0: a power cut);
 * afterwards everything it left in its process tree (children that outlived it) is killed too. Safe
 * when it is not running; true when there was something to stop.
 */
export async function stopProcess(l: Layout, name: string, graceMs = 10_000): Promise<boolean> {
  const record = await runningRecord(l, name);
  if (record) {
    if (graceMs > 0) signal(record.pid, "SIGTERM");
    if (graceMs === 0 || !(await exitedWithin(record, graceMs))) {
      signal(record.pid, "SIGKILL");
      await exitedWithin(record, 5_000);
    }
  }
  const tree = await processTree(l.stateDir, name);
  const leftovers = tree ? await membersOf(tree) : [];
  if (tree) await emptyProcessTree(tree);
  await rm(pidFile(l, name), { force: true });
  return record !== undefined || leftovers.length > 0;
}

/** PIDs still in the process tree of `name` (empty when cgroups are unavailable). */
export async function leftoverPids(l: Layout, name: string): Promise<number[]> {
  const tree = await processTree(l.stateDir, name);
  return tree ? membersOf(tree) : [];
}

async function emptyProcessTree(tree: ProcessTree): Promise<void> {
  for (let attempt = 0; attempt < 50 && (await membersOf(tree)).length > 0; attempt++) {
    await killMembers(tree);
    await sleep(100);
  }
  await removeProcessTree(tree);
}

async function exitedWithin(record: PidRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await isAlive(record))) return true;
    await sleep(100);
  }
  return !(await isAlive(record));
}

async function isAlive(record: PidRecord): Promise<boolean> {
  return (await startTimeOf(record.pid)) === record.startTime;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // exited in between
  }
}

async function readPidRecord(path: string): Promise<PidRecord | undefined> {
  if (!existsSync(path)) return undefined;
  const [pidText, startTime] = (await readFile(path, "utf8")).split("\n");
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 && startTime ? { pid, startTime } : undefined;
}

/**
 * Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or "" when the process is
 * gone or a zombie: together with the PID it names one process for the life of the machine.
 */
async function startTimeOf(pid: number): Promise<string> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: parse after its closing ')'
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    return state === "Z" || state === "X" ? "" : (fields[19] ?? "");
  } catch {
    return "";
  }
}

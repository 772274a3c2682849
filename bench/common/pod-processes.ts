import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import {
  readContainerState,
  type ContainerState,
} from "../../deploy/local/node-agent/runtime/container-state.js";
import { descendants, startTicksOf } from "./proc.js";

// Every process of one pod on the local node agent. The agent records each container instance in
// <nodes>/<node>/runtime/pods/<pod uid>/containers/<name>/state.json, and puts each running instance in a
// cgroup of its own, <tree>/<node>/<pod uid>/<name>-<attempt>, that holds every process it starts, also
// those that left its process tree (QEMU and virtlogd daemonize and are reparented to init). So the pod's
// cgroups are read first; for a container recorded without a cgroup (a machine without writable cgroup2)
// the benchmark falls back to the supervisor's descendants, which misses daemonized processes.

export interface PodProcess {
  pid: number;
  /** The container the process belongs to (for a cgroup the agent did not record: its directory name). */
  container: string;
  /** The agent's supervising shell of the container. */
  supervisor: boolean;
}

export interface PodProcesses {
  processes: PodProcess[];
  /** Where the processes were found, one line each, for the report. */
  sources: string[];
  warnings: string[];
}

export interface PodLocation {
  /** .local/nodes */
  nodesDir: string;
  node: string;
  podUid: string;
  /** /proc, or a fake tree in tests. */
  procRoot?: string;
}

export function containersDir(location: PodLocation): string {
  return path.join(location.nodesDir, location.node, "runtime", "pods", location.podUid, "containers");
}

/** The recorded containers of the pod that have not finished (init containers have). */
export async function runningContainers(location: PodLocation): Promise<ContainerState[]> {
  const dir = containersDir(location);
  const names = await readdir(dir).catch(() => undefined);
  if (names === undefined) throw new Error(`no node agent records for pod ${location.podUid} in ${dir}`);
  const states: ContainerState[] = [];
  for (const name of names.sort()) {
    const state = await readContainerState(path.join(dir, name)).catch(() => undefined);
    if (state && state.exit === undefined && state.pod.uid === location.podUid) states.push(state);
  }
  return states;
}

async function cgroupProcs(dir: string): Promise<number[] | undefined> {
  const text = await readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => undefined);
  return text
    ?.split("\n")
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Each cgroup at or below `dir` with its member processes (cgroup.procs lists processes, not threads). */
async function walkCgroups(dir: string): Promise<{ dir: string; pids: number[] }[]> {
  const pids = await cgroupProcs(dir);
  if (pids === undefined) return [];
  const found = [{ dir, pids }];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    found.push(...(await walkCgroups(path.join(dir, entry.name))));
  }
  return found;
}

export async function findPodProcesses(location: PodLocation): Promise<PodProcesses> {
  const procRoot = location.procRoot ?? "/proc";
  const states = await runningContainers(location);
  if (states.length === 0)
    throw new Error(`the node agent records no running container for pod ${location.podUid}`);
  const supervisors = new Set(states.map((state) => state.supervisor.pid));
  const result: PodProcesses = { processes: [], sources: [], warnings: [] };
  const seen = new Set<number>();
  const add = (pid: number, container: string): void => {
    if (seen.has(pid)) return;
    seen.add(pid);
    result.processes.push({ pid, container, supervisor: supervisors.has(pid) });
  };

  // The pod's cgroup is the parent of its containers' ones: walking it also finds a process in a cgroup
  // of the pod that no running container recorded.
  const containerOfCgroup = new Map<string, string>();
  for (const state of states) if (state.cgroup) containerOfCgroup.set(path.resolve(state.cgroup), state.name);
  const podCgroups = new Set([...containerOfCgroup.keys()].map((dir) => path.dirname(dir)));
  for (const podCgroup of podCgroups) {
    const cgroups = await walkCgroups(podCgroup);
    if (cgroups.length === 0) {
      result.warnings.push(`cannot read ${path.join(podCgroup, "cgroup.procs")}`);
      continue;
    }
    result.sources.push(`cgroup ${podCgroup} (${cgroups.length - 1} container cgroups)`);
    for (const cgroup of cgroups) {
      const relative = path.relative(podCgroup, cgroup.dir);
      const container =
        containerOfCgroup.get(cgroup.dir) ?? (relative === "" ? "(pod)" : relative.split(path.sep)[0]!);
      for (const pid of cgroup.pids) add(pid, container);
    }
  }

  for (const state of states) {
    const cgroup = state.cgroup ? path.resolve(state.cgroup) : undefined;
    if (cgroup && result.sources.length > 0 && (await cgroupProcs(cgroup)) !== undefined) continue;
    // No cgroup to read: the supervisor, if the PID still names it, and its descendants.
    if ((await startTicksOf(procRoot, state.supervisor.pid)) !== state.supervisor.startTicks) {
      result.warnings.push(`${state.name}: supervisor ${state.supervisor.pid} is gone`);
      continue;
    }
    const pids = await descendants(procRoot, [state.supervisor.pid]);
    result.sources.push(`${state.name}: descendants of supervisor ${state.supervisor.pid} (no cgroup)`);
    result.warnings.push(
      `${state.name}: without a cgroup, processes that left its tree (daemons) are missed`,
    );
    for (const pid of pids) add(pid, state.name);
  }
  return result;
}

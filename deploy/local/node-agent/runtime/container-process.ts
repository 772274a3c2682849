import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { CgroupTree } from "./cgroup.js";
import { ContainerStartError } from "./container-command.js";
import type { RootPlan } from "./container-root.js";
import { readContainerState, writeContainerState } from "./container-state.js";
import type { ContainerState, RecordedExit } from "./container-state.js";
import { enterContainerArgs } from "./container-exec.js";
import { CommandError, runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { unmountAllUnder } from "./host-mounts.js";
import { LogPump, createLogFifos, openContainerEnds } from "./log-pump.js";
import { childrenOf, identify, isAlive, signalGroup } from "./process-identity.js";
import type { ProcessIdentity } from "./process-identity.js";
import { renderSetupScript, renderSupervisorScript } from "./shell.js";

// Container processes. The agent spawns a small supervising shell into the pod's network namespace and a
// new mount namespace (nsenter + unshare, no fork: the spawned PID is the supervisor). Once it reports in,
// the agent builds the container's root inside that namespace, then lets it run the command chrooted
// there. The supervisor leads the container's process group (stop signals go to the whole group) and
// records the exit status, so an agent that restarts in between still learns how a container ended.

export interface HostTools {
  nsenter: string;
  unshare: string;
  sh: string;
}

export const DEBIAN_TOOLS: HostTools = {
  nsenter: "/usr/bin/nsenter",
  unshare: "/usr/bin/unshare",
  sh: "/bin/sh",
};

export interface PodRef {
  uid: string;
  namespace: string;
  name: string;
}

export interface ContainerExit {
  /** 128 + signal number when a signal ended it, as container runtimes report it. */
  exitCode: number;
  signal?: string;
  finishedAt: Date;
  /** Set when the runtime could not observe the end: kubelet's ContainerStatusUnknown. */
  reason?: string;
  message?: string;
}

export interface ContainerLaunch {
  id: string;
  pod: PodRef;
  name: string;
  attempt: number;
  argv: string[];
  env: Record<string, string>;
  plan: RootPlan;
  identity?: { uid: number; gid: number };
  /** Capabilities a non-root identity keeps (Linux names without CAP_, lower case: net_bind_service). */
  ambientCapabilities?: string[];
  /** The pod's network namespace file; absent for hostNetwork pods. */
  netnsPath?: string;
  /** The pod's hostname, set in a UTS namespace of its own; absent for hostNetwork pods (node's name). */
  hostname?: string;
  /** Agent-private directory of this container (FIFOs, scratch mount point, records). */
  stateDir: string;
  logPath: string;
  /** cgroup path parts below the runtime's tree, when cgroups are in use. */
  cgroupParts?: string[];
}

const READY_TIMEOUT_MS = 10_000;
const LOG_DRAIN_TIMEOUT_MS = 2_000;
const ADOPTED_POLL_MS = 250;
const UNKNOWN_EXIT: Omit<ContainerExit, "finishedAt"> = {
  exitCode: 137,
  reason: "ContainerStatusUnknown",
  message: "The container could not be located when the pod was terminated",
};

function signalNumber(signal: string): number {
  return (osConstants.signals as Record<string, number>)[signal] ?? 0;
}

function sleep(ms: number, keepAlive = true): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (!keepAlive) timer.unref();
  });
}

/** The promise's value, or "timeout" after `ms`; the timer does not outlive the race. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function readStatusFile(file: string): Promise<number | undefined> {
  const text = (await readFile(file, "utf8").catch(() => "")).trim();
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function toRecordedExit(exit: ContainerExit): RecordedExit {
  return { ...exit, finishedAt: exit.finishedAt.toISOString() };
}

export function fromRecordedExit(exit: RecordedExit): ContainerExit {
  return { ...exit, finishedAt: new Date(exit.finishedAt) };
}

/** A running (or finished) container instance. */
export class ContainerHandle {
  readonly exited: Promise<ContainerExit>;
  private finished = false;
  private resolveExit!: (exit: ContainerExit) => void;

  constructor(
    private state: ContainerState,
    private readonly stateDir: string,
    private readonly pump: LogPump,
    private readonly cgroups: CgroupTree | undefined,
    private readonly run: RunCommand = runCommand,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  get id(): string {
    return this.state.id;
  }
  get pid(): number {
    return this.state.pid;
  }
  get startedAt(): Date {
    return new Date(this.state.startedAt);
  }
  get record(): ContainerState {
    return this.state;
  }

  /** SIGTERM to the process group, SIGKILL to everything after the grace period; resolves on exit. */
  async stop(gracePeriodMs: number): Promise<ContainerExit> {
    if (!this.finished && (await isAlive(this.state.supervisor))) {
      signalGroup(this.state.supervisor.pid, "SIGTERM");
      if ((await withTimeout(this.exited, gracePeriodMs)) === "timeout") await this.killAll();
    }
    return this.exited;
  }

  /** Called once the supervisor is gone: kills leftovers, drains the logs, records the exit. */
  async finish(observed: Omit<ContainerExit, "finishedAt">): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const status = await readStatusFile(this.state.statusFile);
    const exit: ContainerExit =
      status !== undefined
        ? { exitCode: status, finishedAt: new Date() }
        : { ...observed, finishedAt: new Date() };
    // With no PID namespace, the container's other processes would outlive it; end them as a
    // namespace's init exiting would.
    // Whatever fails while cleaning up, the exit must still be reported.
    await this.killAll().catch(() => undefined);
    await withTimeout(this.pump.drained, LOG_DRAIN_TIMEOUT_MS);
    await this.pump.close();
    if (this.cgroups && this.state.cgroup)
      await this.cgroups.remove(this.state.cgroup).catch(() => undefined);
    await unmountAllUnder(rootfsDir(this.stateDir), this.run).catch(() => undefined);
    this.state = { ...this.state, exit: toRecordedExit(exit) };
    await writeContainerState(this.stateDir, this.state).catch(() => undefined);
    this.resolveExit(exit);
  }

  private async killAll(): Promise<void> {
    if (this.cgroups && this.state.cgroup) {
      await this.cgroups.killAll(this.state.cgroup);
    } else {
      // The group id stays reserved while any member lives, and PIDs are handed out cyclically, so the
      // group right after its leader's end is still the container's.
      signalGroup(this.state.supervisor.pid, "SIGKILL");
    }
  }
}

/** The container's scratch directory: its root's tmpfs and overlay are mounted there on the node. */
export function rootfsDir(containerStateDir: string): string {
  return path.join(containerStateDir, "rootfs");
}

export class ContainerProcesses {
  constructor(
    private readonly cgroups: CgroupTree | undefined,
    private readonly tools: HostTools = DEBIAN_TOOLS,
    private readonly run: RunCommand = runCommand,
  ) {}

  async start(launch: ContainerLaunch): Promise<ContainerHandle> {
    await mkdir(launch.stateDir, { recursive: true, mode: 0o700 });
    await mkdir(rootfsDir(launch.stateDir), { recursive: true });
    await mkdir(path.dirname(launch.logPath), { recursive: true });
    const statusFile = path.join(launch.stateDir, "exit-status");
    await rm(statusFile, { force: true });
    await this.mountRootOnHost(launch);
    const fifos = await createLogFifos(launch.stateDir);
    const ends = openContainerEnds(fifos);
    const pump = new LogPump(fifos, launch.logPath);
    let child: ChildProcess;
    try {
      child = spawn(...this.command(launch, statusFile), {
        stdio: ["ignore", ends.stdout, ends.stderr, "pipe"],
        detached: true,
        env: launch.env,
      });
    } finally {
      closeSync(ends.stdout);
      closeSync(ends.stderr);
    }
    const control = child.stdio[3] as Duplex;
    const startedAt = new Date();
    let cgroup: string | undefined;
    try {
      const supervisor = await this.awaitReady(child, control);
      if (this.cgroups && launch.cgroupParts) {
        cgroup = await this.cgroups.create(launch.cgroupParts);
        await this.cgroups.join(cgroup, supervisor.pid);
      }
      await this.setUpRoot(supervisor.pid, launch.plan);
      control.end("run\n");
      const state: ContainerState = {
        version: 1,
        id: launch.id,
        pod: launch.pod,
        name: launch.name,
        attempt: launch.attempt,
        supervisor,
        pid: await this.commandPid(supervisor.pid),
        startedAt: startedAt.toISOString(),
        logPath: launch.logPath,
        statusFile,
        ...(cgroup ? { cgroup } : {}),
      };
      await writeContainerState(launch.stateDir, state);
      const handle = new ContainerHandle(state, launch.stateDir, pump, this.cgroups, this.run);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        void handle.finish(
          signal
            ? { exitCode: 128 + signalNumber(signal), signal }
            : { exitCode: code ?? UNKNOWN_EXIT.exitCode },
        );
      if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
      else child.once("exit", onExit);
      child.unref();
      return handle;
    } catch (error) {
      control.destroy();
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      if (cgroup && this.cgroups)
        await this.cgroups.killAll(cgroup).then(() => this.cgroups?.remove(cgroup as string));
      await pump.close();
      await unmountAllUnder(rootfsDir(launch.stateDir), this.run).catch(() => undefined);
      throw error instanceof ContainerStartError ? error : new ContainerStartError((error as Error).message);
    }
  }

  /** Takes over a container an earlier agent run started; undefined when it is no longer running. */
  async adopt(stateDir: string): Promise<{ handle?: ContainerHandle; state: ContainerState } | undefined> {
    const state = await readContainerState(stateDir);
    if (!state) return undefined;
    if (state.exit) return { state };
    const pump = new LogPump(await createLogFifos(stateDir), state.logPath);
    const handle = new ContainerHandle(state, stateDir, pump, this.cgroups, this.run);
    if (!(await isAlive(state.supervisor))) {
      await handle.finish(UNKNOWN_EXIT);
      return { state: handle.record };
    }
    const watch = async () => {
      // Watching must not keep an agent that is otherwise done from exiting.
      while (await isAlive(state.supervisor)) await sleep(ADOPTED_POLL_MS, false);
      await handle.finish(UNKNOWN_EXIT);
    };
    void watch();
    return { handle, state };
  }

  /** Runs a command in a running container's namespaces, root, directory, user and environment. */
  async exec(
    pid: number,
    command: string[],
    timeoutMs: number,
  ): Promise<{ exitCode: number; output: string }> {
    const { args, env } = await enterContainerArgs(pid);
    return new Promise((resolve) => {
      const child = spawn(this.tools.nsenter, [...args, ...command], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const output: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        const exitCode = signal ? 128 + signalNumber(signal) : (code ?? 1);
        resolve({ exitCode, output: Buffer.concat(output).toString() });
      });
    });
  }

  private command(launch: ContainerLaunch, statusFile: string): [string, string[]] {
    const supervisor = renderSupervisorScript({
      unsharePath: this.tools.unshare,
      rootDir: launch.plan.rootDir,
      workingDir: launch.plan.workingDir,
      statusFile,
      ...(launch.identity ?? {}),
      ...(launch.hostname !== undefined ? { hostname: launch.hostname } : {}),
      ...(launch.ambientCapabilities?.length ? { ambientCapabilities: launch.ambientCapabilities } : {}),
    });
    const uts = launch.hostname !== undefined ? ["--uts"] : [];
    // Peer groups are kept only when a volume propagates; the root's mounts are private either way.
    const inMountNamespace = [
      "--mount",
      ...uts,
      "--propagation",
      launch.plan.propagates ? "unchanged" : "private",
      "--",
      this.tools.sh,
      "-c",
      supervisor,
    ];
    const args = [...inMountNamespace, `kvts:${launch.pod.name}/${launch.name}`, ...launch.argv];
    if (!launch.netnsPath) return [this.tools.unshare, args];
    return [this.tools.nsenter, [`--net=${launch.netnsPath}`, "--", this.tools.unshare, ...args]];
  }

  private async awaitReady(child: ChildProcess, control: Duplex): Promise<ProcessIdentity> {
    const outcome = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve("timeout"), READY_TIMEOUT_MS);
      const done = (result: string) => {
        clearTimeout(timer);
        resolve(result);
      };
      control.once("data", (chunk: Buffer) =>
        done(chunk.toString().startsWith("ready") ? "ready" : "garbled"),
      );
      child.once("exit", (code) => done(`exited with code ${code ?? "?"}`));
      child.once("error", (error) => done(error.message));
    });
    const identity = outcome === "ready" && child.pid !== undefined ? await identify(child.pid) : undefined;
    if (!identity) {
      throw new ContainerStartError(`failed to create the container's namespaces: the supervisor ${outcome}`);
    }
    return identity;
  }

  /** The root's tmpfs and overlay, on the node (as a container runtime's rootfs mount); a leftover goes first. */
  private async mountRootOnHost(launch: ContainerLaunch): Promise<void> {
    await unmountAllUnder(rootfsDir(launch.stateDir), this.run);
    try {
      await this.run(this.tools.sh, ["-c", renderSetupScript(launch.plan.hostSteps)]);
    } catch (error) {
      await unmountAllUnder(rootfsDir(launch.stateDir), this.run).catch(() => undefined);
      const detail = error instanceof CommandError ? error.stderr.trim() : (error as Error).message;
      throw new ContainerStartError(`failed to mount the container's root filesystem: ${detail}`);
    }
  }

  private async setUpRoot(pid: number, plan: RootPlan): Promise<void> {
    try {
      await this.run(this.tools.nsenter, [
        `--mount=/proc/${pid}/ns/mnt`,
        "--",
        this.tools.sh,
        "-c",
        renderSetupScript(plan.steps),
      ]);
    } catch (error) {
      const detail = error instanceof CommandError ? error.stderr.trim() : (error as Error).message;
      throw new ContainerStartError(`failed to set up the container's root filesystem: ${detail}`);
    }
  }

  /** The command's PID: the supervisor's child once it has forked (the supervisor if it already ended). */
  private async commandPid(supervisorPid: number): Promise<number> {
    for (let i = 0; i < 100; i++) {
      const [child] = await childrenOf(supervisorPid);
      if (child !== undefined) return child;
      if ((await identify(supervisorPid)) === undefined) break;
      await sleep(5);
    }
    return supervisorPid;
  }
}

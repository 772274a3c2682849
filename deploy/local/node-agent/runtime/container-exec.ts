import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { Duplex, Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { ExecStreams, TerminalSize } from "../pod-runtime.js";
import { ensureNativeBinary } from "./native-binary.js";

// Interactive processes in a running container, for kubelet's exec and port-forward endpoints. Exec
// enters the container the way a runtime's exec does: the container process's mount, network and UTS
// namespaces, its root and working directory, its user and group and its environment (read from /proc,
// so it is the environment the container was started with). With a TTY the command runs on a
// pseudo-terminal the stream helper (stream-helper/main.c) owns; port-forward connects to localhost inside
// the pod's network namespace through the same helper, as containerd's port forwarder does.

const FIRST_SIZE_WAIT_MS = 2000;

const HELPER_SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), "stream-helper", "main.c");

/** The process environment and identity of a running process, as nsenter arguments. */
export async function enterContainerArgs(
  pid: number,
): Promise<{ args: string[]; env: Record<string, string> }> {
  const [environ, status] = await Promise.all([
    readFile(`/proc/${pid}/environ`, "utf8"),
    readFile(`/proc/${pid}/status`, "utf8"),
  ]);
  const env = Object.fromEntries(
    environ
      .split("\0")
      .filter((entry) => entry.includes("="))
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
  const id = (field: string) => /^\s*(\d+)/.exec(status.split(`\n${field}:`)[1] ?? "")?.[1] ?? "0";
  const args = [
    "-t",
    String(pid),
    "-m",
    "-n",
    "-u",
    "-r",
    "-w",
    `--setuid=${id("Uid")}`,
    `--setgid=${id("Gid")}`,
    "--",
  ];
  return { args, env };
}

function signalNumber(signal: string): number {
  return (osConstants.signals as Record<string, number>)[signal] ?? 0;
}

function exitCodeOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(signal ? 128 + signalNumber(signal) : (code ?? 1)));
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export class ContainerStreamer {
  private helper: Promise<string> | undefined;

  constructor(
    private readonly binDir: string,
    private readonly nsenter = "/usr/bin/nsenter",
  ) {}

  private helperPath(): Promise<string> {
    this.helper ??= ensureNativeBinary(HELPER_SOURCE, { binDir: this.binDir });
    return this.helper;
  }

  /** Runs `command` in the container whose main process is `pid`; resolves with its exit code. */
  async exec(pid: number, command: string[], io: ExecStreams): Promise<number> {
    const { args, env } = await enterContainerArgs(pid);
    const enter = [this.nsenter, ...args, ...command];
    // The terminal comes from the container's own devpts instance (its /dev/ptmx links there).
    // A client with a terminal sends its size as the streams open; the command waits for it (bounded).
    const awaitSize = io.resizes ? ["--await-size", String(FIRST_SIZE_WAIT_MS)] : [];
    const [file, argv] = io.tty
      ? [
          await this.helperPath(),
          ["pty", "--ptmx", `/proc/${pid}/root/dev/pts/ptmx`, ...awaitSize, "--", ...enter],
        ]
      : [enter[0] as string, enter.slice(1)];
    const child = spawn(file, argv, {
      env,
      detached: true,
      stdio: [io.stdin ? "pipe" : "ignore", "pipe", "pipe", io.tty ? "pipe" : "ignore"],
    });
    const exited = exitCodeOf(child);
    const onAbort = () => killGroup(child);
    io.signal?.addEventListener("abort", onAbort, { once: true });
    if (io.stdin && child.stdin) {
      child.stdin.on("error", () => undefined);
      io.stdin.pipe(child.stdin);
    }
    const startFailure = watchStartFailure(child.stderr);
    const outputs = [
      pipeOut(child.stdout, io.stdout),
      // Under a TTY the terminal carries the command's stderr; the helper's own complaints go to stderr.
      pipeOut(startFailure.rest, io.stderr ?? (io.tty ? io.stdout : undefined)),
    ];
    if (io.tty && io.resizes) void forwardResizes(io.resizes, child.stdio[3] as Writable);
    try {
      const code = await exited;
      const failure = startFailure.settle(code);
      await Promise.all(outputs);
      if (failure !== undefined) {
        throw new Error(`failed to exec in container: ${execStartMessage(command[0] ?? "", failure)}`);
      }
      return code;
    } finally {
      io.signal?.removeEventListener("abort", onAbort);
      if (io.stdin && child.stdin) io.stdin.unpipe(child.stdin);
      (child.stdio[3] as Writable | null)?.destroy();
    }
  }

  /** Relays `stream` to localhost:`port` in the network namespace of `pid`; rejects with the reason it could not. */
  async portForward(pid: number, port: number, stream: Duplex): Promise<void> {
    const child = spawn(
      this.nsenter,
      [`--net=/proc/${pid}/ns/net`, "--", await this.helperPath(), "connect", String(port)],
      {
        env: {},
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const exited = exitCodeOf(child);
    const stderr: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on("error", () => undefined);
    stream.pipe(child.stdin);
    child.stdout.pipe(stream);
    const onClose = () => killGroup(child);
    stream.once("close", onClose);
    try {
      const code = await exited;
      if (code !== 0) throw new Error(Buffer.concat(stderr).toString().trim() || `exit code ${code}`);
    } finally {
      stream.off("close", onClose);
      stream.unpipe(child.stdin);
    }
  }
}

/** nsenter's own complaint when the command cannot be executed; the command's output never starts so. */
const NSENTER_EXEC_FAILURE = /^nsenter: failed to execute .*?: (.*)\n?$/;

/**
 * Holds back the start of stderr until it is clear whether it is nsenter saying the command could not be
 * executed (then the exec failed to start, as a runtime reports it) or the command's own output. Once the
 * process ended, `settle` says which: the held text is dropped only for an exec failure.
 */
function watchStartFailure(stderr: Readable | null): {
  rest: Readable | null;
  settle(exitCode: number): string | undefined;
} {
  if (!stderr) return { rest: null, settle: () => undefined };
  const rest = new PassThrough();
  const prefix = "nsenter: failed to execute ";
  let head = "";
  let decided = false;
  stderr.on("data", (chunk: Buffer) => {
    if (decided) {
      if (!rest.write(chunk)) {
        stderr.pause();
        rest.once("drain", () => stderr.resume());
      }
      return;
    }
    head += chunk.toString("utf8");
    const couldBe = head.length < prefix.length ? prefix.startsWith(head) : head.startsWith(prefix);
    if (!couldBe) {
      decided = true;
      rest.write(head);
    }
  });
  stderr.once("end", () => {
    if (decided) rest.end();
  });
  stderr.once("error", () => rest.end());
  return {
    rest,
    settle(exitCode) {
      if (decided) return undefined;
      decided = true;
      const match = NSENTER_EXEC_FAILURE.exec(head);
      const failed = match !== null && (exitCode === 126 || exitCode === 127);
      rest.end(failed ? undefined : head);
      return failed ? match[1] : undefined;
    },
  };
}

/** runc's words for a command that could not be executed (as container starts report it, container-command.ts). */
function execStartMessage(argv0: string, reason: string): string {
  if (/No such file or directory/.test(reason)) {
    return argv0.includes("/")
      ? `exec: "${argv0}": stat ${argv0}: no such file or directory`
      : `exec: "${argv0}": executable file not found in $PATH`;
  }
  return `exec: "${argv0}": ${reason.toLowerCase()}`;
}

function pipeOut(from: Readable | null, to: Writable | undefined): Promise<void> {
  if (!from) return Promise.resolve();
  return new Promise((resolve) => {
    from.on("data", (chunk: Buffer) => {
      if (to && !to.destroyed && !to.write(chunk)) {
        from.pause();
        const resume = () => {
          to.off("drain", resume);
          to.off("close", resume);
          from.resume();
        };
        to.once("drain", resume);
        to.once("close", resume);
      }
    });
    from.once("end", resolve);
    from.once("error", () => resolve());
  });
}

async function forwardResizes(resizes: AsyncIterable<TerminalSize>, control: Writable): Promise<void> {
  control.on("error", () => undefined);
  try {
    for await (const size of resizes) {
      if (control.destroyed) return;
      control.write(`${Math.max(0, Math.trunc(size.width))} ${Math.max(0, Math.trunc(size.height))}\n`);
    }
  } catch {
    // the resize stream ended with the connection
  }
}

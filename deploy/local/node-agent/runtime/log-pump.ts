import { constants, openSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import type { WriteStream } from "node:fs";
import { Socket } from "node:net";
import path from "node:path";
import { runCommand } from "./exec.js";
import { CriLineSplitter, createNanoClock } from "./cri-log.js";
import type { LogStream } from "./cri-log.js";

// A container's stdout and stderr go to named pipes the container itself holds open for reading and
// writing, so it never gets SIGPIPE and its output waits in the pipe while the agent is away. The agent
// reads them (again, after a restart) and appends CRI records to kubelet's log file.

export interface LogFifos {
  stdout: string;
  stderr: string;
}

export async function createLogFifos(dir: string): Promise<LogFifos> {
  await mkdir(dir, { recursive: true });
  const fifos = { stdout: path.join(dir, "stdout.fifo"), stderr: path.join(dir, "stderr.fifo") };
  for (const fifo of Object.values(fifos)) {
    const existing = await stat(fifo).catch(() => undefined);
    if (existing && !existing.isFIFO()) throw new Error(`${fifo} exists and is not a FIFO`);
    if (!existing) await runCommand("mkfifo", ["-m", "0600", fifo]);
  }
  return fifos;
}

/** Descriptors for the container's stdout/stderr: read-write, so the pipe always has a reader. */
export function openContainerEnds(fifos: LogFifos): { stdout: number; stderr: number } {
  return { stdout: openSync(fifos.stdout, "r+"), stderr: openSync(fifos.stderr, "r+") };
}

export class LogPump {
  /** Settles when both pipes reached end-of-file (every writer exited) or the pump was closed. */
  readonly drained: Promise<void>;
  private readonly sockets: Socket[] = [];
  private readonly file: WriteStream;

  constructor(fifos: LogFifos, logPath: string, clock: () => bigint = createNanoClock()) {
    this.file = createWriteStream(logPath, { flags: "a", mode: 0o640 });
    const ends = (Object.keys(fifos) as LogStream[]).map((stream) => this.pump(stream, fifos[stream], clock));
    this.drained = Promise.all(ends).then(() => undefined);
  }

  /** Stops reading (what is still in the pipes stays there for a later reader) and closes the log file. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await this.drained;
    await new Promise<void>((resolve) => this.file.end(resolve));
  }

  private pump(stream: LogStream, fifo: string, clock: () => bigint): Promise<void> {
    // Non-blocking: a FIFO read end must not tie up one of libuv's few threadpool threads.
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const socket = new Socket({ fd, readable: true, writable: false });
    this.sockets.push(socket);
    const splitter = new CriLineSplitter(stream, clock);
    socket.on("data", (chunk: Buffer) => {
      for (const record of splitter.push(chunk)) this.file.write(record);
    });
    return new Promise((resolve) => {
      socket.on("close", () => {
        for (const record of splitter.end()) this.file.write(record);
        resolve();
      });
      socket.on("error", () => socket.destroy());
    });
  }
}

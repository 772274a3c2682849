// Runs one plain QEMU guest for tests and benchmarks: serial console on stdio (-nographic), QMP on
// a unix socket, wall-clock times of what appears on the console. Nothing here reaches the network:
// callers choose the NICs (tests use `-netdev user,restrict=on`).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { QmpClient } from "./qmp.js";

export interface ConsoleMatch {
  match: RegExpExecArray;
  /** Milliseconds from QEMU's start to the moment the text was seen. */
  atMs: number;
  /** Console offset just after the match: pass it as `from` to wait for what comes next. */
  end: number;
}

export class QemuVm {
  /** Everything the guest wrote to its serial console so far. */
  console = "";
  readonly qmpSocket: string;
  private readonly startedAt = performance.now();
  private readonly waiters = new Set<() => void>();
  private exitCode: number | null | undefined = undefined;

  private constructor(
    private readonly child: ChildProcess,
    qmpSocket: string,
  ) {
    this.qmpSocket = qmpSocket;
    const append = (chunk: Buffer): void => {
      this.console += chunk.toString("utf8");
      this.wakeWaiters();
    };
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    child.on("exit", (code, signal) => {
      this.exitCode = signal ? null : code;
      this.wakeWaiters();
    });
  }

  /** Starts qemu-system-x86_64 with `args`, adding -nographic and a QMP socket in `workDir`. */
  static start(args: string[], workDir: string): QemuVm {
    const qmpSocket = path.join(workDir, "qmp.sock");
    const child = spawn(
      "qemu-system-x86_64",
      ["-nographic", "-qmp", `unix:${qmpSocket},server=on,wait=off`, ...args],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    return new QemuVm(child, qmpSocket);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exited(): boolean {
    return this.exitCode !== undefined;
  }

  /** Waits until `pattern` matches the console at or after offset `from`. */
  waitFor(pattern: RegExp, timeoutMs: number, from = 0): Promise<ConsoleMatch> {
    const sticky = new RegExp(pattern.source, pattern.flags.replace("g", "") + "g");
    return new Promise((resolve, reject) => {
      const check = (): void => {
        sticky.lastIndex = from;
        const match = sticky.exec(this.console);
        if (match) {
          finish();
          resolve({ match, atMs: performance.now() - this.startedAt, end: match.index + match[0].length });
        } else if (this.exited) {
          finish();
          reject(new Error(`QEMU exited (${this.exitCode}) before ${pattern}; console:\n${this.tail()}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${pattern} on the console after ${timeoutMs} ms; console:\n${this.tail()}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Types on the serial console. */
  type(text: string): void {
    this.child.stdin?.write(text);
  }

  /** Presses the ACPI power button (what libvirt's shutdown does). */
  async powerdown(): Promise<void> {
    for (let attempt = 0; !existsSync(this.qmpSocket) && attempt < 50; attempt++) await sleep(100);
    const qmp = await QmpClient.connect(this.qmpSocket);
    try {
      await qmp.execute("system_powerdown");
    } finally {
      qmp.close();
    }
  }

  /** Resolves with QEMU's exit code (null if a signal ended it), or undefined on timeout. */
  async waitForExit(timeoutMs: number): Promise<number | null | undefined> {
    const deadline = performance.now() + timeoutMs;
    while (!this.exited && performance.now() < deadline) await sleep(100);
    return this.exitCode;
  }

  /** Ends QEMU by the PID this object started, if it still runs. */
  kill(): void {
    if (!this.exited && this.child.pid !== undefined) this.child.kill("SIGKILL");
  }

  private wakeWaiters(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private tail(): string {
    return this.console.slice(-3000);
  }
}

// Watches the QEMU process of the launcher's domain (upstream virt-launcher/monitor.go): finds its
// pid in libvirt's pid file, returns when it is gone, and on a stop signal starts the grace period:
// the graceful-shutdown callback at once, the final-shutdown callback every tick once it expired.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../controller/log.js";

export interface ProcessMonitorOptions {
  domainName: string;
  /** libvirt's QEMU pid files: `<dir>/<domain name>.pid`. */
  pidDir: string;
  gracePeriodSeconds: number;
  gracefulShutdown: () => Promise<void>;
  finalShutdown: (pid: number) => Promise<void>;
  log: Logger;
  /** Set when the launcher is told to leave (a failed migration's target): monitoring simply ends. */
  earlyExit?: AbortSignal;
  tickMs?: number;
  now?: () => number;
}

export async function findPid(domainName: string, pidDir: string): Promise<number> {
  const text = await readFile(join(pidDir, `${domainName}.pid`), "utf8");
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`bad pid file content "${text}"`);
  return pid;
}

/** Whether the process exists, and whether it is a zombie waiting to be reaped. */
export async function pidStatus(pid: number): Promise<{ exists: boolean; zombie: boolean }> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return { exists: true, zombie: /^State:\s+Z/m.test(status) };
  } catch {
    return { exists: false, zombie: false };
  }
}

export class ProcessMonitor {
  private pid = 0;
  private gracePeriodStart: number | undefined;
  private done = false;
  private start = 0;

  constructor(private readonly options: ProcessMonitorOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private gracePeriodExpired(): boolean {
    return (
      this.gracePeriodStart !== undefined &&
      this.now() - this.gracePeriodStart > this.options.gracePeriodSeconds * 1000
    );
  }

  /** Resolves when QEMU is gone (or never appeared within `startTimeoutMs`; 0 waits forever). */
  async run(startTimeoutMs: number, stop: AbortSignal): Promise<void> {
    const { log, tickMs = 1_000 } = this.options;
    this.start = this.now();
    const onStop = (): void => void this.beginGracePeriod();
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
    log.info({ rateMs: tickMs, startTimeoutMs }, "Monitoring loop");
    try {
      while (!this.done) {
        await this.refresh(startTimeoutMs);
        if (!this.done) await sleep(tickMs);
      }
    } finally {
      stop.removeEventListener("abort", onStop);
    }
  }

  private async beginGracePeriod(): Promise<void> {
    if (this.gracePeriodStart !== undefined) return;
    this.gracePeriodStart = this.now();
    await this.options.gracefulShutdown().catch((error: unknown) => {
      this.options.log.error({ err: error }, "graceful shutdown failed");
    });
  }

  private async refresh(startTimeoutMs: number): Promise<void> {
    const { domainName, pidDir, log } = this.options;
    if (this.options.earlyExit?.aborted) {
      log.info(`received early exit signal - stop waiting for ${domainName}`);
      this.done = true;
      return;
    }
    const expired = this.gracePeriodExpired();
    if (this.pid === 0) {
      try {
        this.pid = await findPid(domainName, pidDir);
        log.info({ pid: this.pid }, `Found PID for ${domainName}: ${this.pid}`);
      } catch {
        const waited = this.now() - this.start;
        if (
          (startTimeoutMs > 0 && waited >= startTimeoutMs) ||
          expired ||
          this.gracePeriodStart !== undefined
        ) {
          log.info(`${domainName} not found, monitoring ends`);
          this.done = true;
        }
        return;
      }
    }
    const { exists, zombie } = await pidStatus(this.pid);
    if (!exists || zombie) {
      log.info({ pid: this.pid }, `Process ${domainName} and pid ${this.pid} is gone!`);
      this.pid = 0;
      this.done = true;
      return;
    }
    if (expired) {
      log.info("Grace Period expired, shutting down.");
      await this.options.finalShutdown(this.pid).catch((error: unknown) => {
        log.error({ err: error }, "final shutdown failed");
      });
    }
  }
}

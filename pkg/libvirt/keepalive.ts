// Client-side keepalive, as libvirt's own client does it: after `intervalMs` without hearing from
// the daemon, send a PING; after `count` PINGs in a row go unanswered, declare the daemon dead.
import { LibvirtConnectionClosedError } from "./errors.js";

export interface KeepAliveOptions {
  intervalMs: number;
  count: number;
}

export class KeepAliveMonitor {
  private lastHeard = Date.now();
  private unanswered = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: KeepAliveOptions,
    private readonly actions: { ping(): void; dead(error: Error): void },
  ) {
    this.timer = setInterval(() => this.tick(), options.intervalMs);
    // Keepalive alone must not keep a process running.
    this.timer.unref();
  }

  /** Any packet from the daemon proves it is alive. */
  heard(): void {
    this.lastHeard = Date.now();
    this.unanswered = 0;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    if (Date.now() - this.lastHeard < this.options.intervalMs) return;
    if (this.unanswered >= this.options.count) {
      this.stop();
      const silence = Date.now() - this.lastHeard;
      this.actions.dead(
        new LibvirtConnectionClosedError(
          `the libvirt daemon answered none of ${this.unanswered} keepalive pings in ${silence} ms`,
        ),
      );
      return;
    }
    this.unanswered++;
    this.actions.ping();
  }
}

// Test helper: the guest's serial console on QEMU's unix socket, read as text.
import { connect } from "node:net";
import type { Socket } from "node:net";

export class SerialConsole {
  private text = "";
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.text += chunk;
      for (const wake of this.waiters) wake();
    });
  }

  static open(path: string): Promise<SerialConsole> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once("connect", () => resolve(new SerialConsole(socket)));
      socket.once("error", reject);
    });
  }

  /** Everything read so far. */
  get output(): string {
    return this.text;
  }

  /** Waits until the output after `from` matches `pattern`; returns the match. */
  waitFor(pattern: RegExp, timeoutMs: number, from = 0): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = this.text.slice(from).match(pattern);
        if (!match) return false;
        cleanup();
        resolve(match);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `no ${pattern} on the serial console within ${timeoutMs} ms; got:\n${this.text.slice(-2000)}`,
          ),
        );
      }, timeoutMs);
      const wake = (): void => void check();
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
      check();
    });
  }

  type(line: string): void {
    this.socket.write(`${line}\n`);
  }

  close(): void {
    this.socket.destroy();
  }
}

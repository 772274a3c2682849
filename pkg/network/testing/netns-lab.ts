import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { runCommand } from "../driver/netns-exec.js";

// Throwaway network namespaces for the real tests of the pod network setup. Every name carries a
// random suffix (`kvtsnet-<role><hex>`), every address is in 10.244.250.0/24 or the guest's 10.0.2.0/24,
// and nothing is created in the caller's own namespace, so no packet leaves these namespaces.

/** Why the real network tests cannot run here, or undefined when they can. */
export async function netnsTestsUnavailableReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "creating network namespaces needs root";
  for (const tool of [
    ["ip", "-V"],
    ["nft", "--version"],
    ["nsenter", "--version"],
    ["busybox", "true"],
  ] as const) {
    try {
      await runCommand(tool[0], tool.slice(1));
    } catch {
      return `${tool[0]} is not installed`;
    }
  }
  return undefined;
}

export interface Netns {
  name: string;
  path: string;
}

export class NetnsLab {
  readonly id = randomBytes(3).toString("hex");
  private readonly namespaces: Netns[] = [];
  private readonly processes: ChildProcess[] = [];

  /** Link names stay under the kernel's 15 characters: prefix + 6 hex digits. */
  linkName(prefix: string): string {
    return `${prefix}${this.id}`;
  }

  async netns(role: string): Promise<Netns> {
    const name = `kvtsnet-${role}${this.id}`;
    await runCommand("ip", ["netns", "add", name]);
    const created = { name, path: `/run/netns/${name}` };
    this.namespaces.push(created);
    await this.run(created, "ip", ["link", "set", "lo", "up"]);
    return created;
  }

  run(netns: Netns, command: string, args: readonly string[]): Promise<string> {
    return runCommand("nsenter", [`--net=${netns.path}`, "--", command, ...args]);
  }

  /** A long-running process in a namespace; killed (by its PID) in cleanup. */
  spawn(netns: Netns, command: string, args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn("nsenter", [`--net=${netns.path}`, "--", command, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env },
    });
    this.processes.push(child);
    return child;
  }

  names(): string[] {
    return this.namespaces.map((netns) => netns.name);
  }

  /** Deletes every namespace and process of the lab, then checks that nothing of it is left. */
  async cleanup(): Promise<void> {
    for (const child of this.processes) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    for (const netns of this.namespaces.reverse()) {
      await runCommand("ip", ["netns", "del", netns.name]).catch(() => undefined);
    }
    const namespaces = await runCommand("ip", ["netns", "list"]);
    const links = await runCommand("ip", ["-o", "link", "show"]);
    const leftovers = [...this.names().filter((name) => namespaces.includes(name))];
    if (links.includes(this.id)) leftovers.push(`a link named *${this.id} in the caller's namespace`);
    if (leftovers.length > 0) throw new Error(`left behind: ${leftovers.join(", ")}`);
  }
}

/** The stdout lines of a process, one at a time, none lost between reads. */
export class LineQueue {
  private readonly pending: string[] = [];
  private readonly waiters: Array<(line: string | undefined) => void> = [];
  private closed = false;

  constructor(child: ChildProcess) {
    if (!child.stdout) throw new Error("the process has no stdout pipe");
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.pending.push(line);
    });
    lines.once("close", () => {
      this.closed = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  /** The next line, or a rejection after `timeoutMs` or when the output ends. */
  next(timeoutMs = 10_000): Promise<string> {
    const ready = this.pending.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closed) return Promise.reject(new Error("the process's output ended"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(settle), 1);
        reject(new Error("timed out waiting for the process's output"));
      }, timeoutMs);
      const settle = (line: string | undefined): void => {
        clearTimeout(timer);
        if (line === undefined) reject(new Error("the process's output ended"));
        else resolve(line);
      };
      this.waiters.push(settle);
    });
  }
}

import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";

// Runs the network tools (ip, nft, sysctl) inside one network namespace through nsenter, so that no
// command of the network setup can reach the caller's own namespace by mistake. Reads and changes
// are separate calls: the setup is idempotent, and a second run must issue no change at all.

export interface NetnsExec {
  /** The namespace the commands run in, for messages. */
  readonly netnsPath: string;
  /** Runs a command that only reads state; returns its stdout. */
  query(command: string, args: readonly string[]): Promise<string>;
  /** Runs a command that changes state; returns its stdout. */
  change(command: string, args: readonly string[], stdin?: string): Promise<string>;
}

export class CommandError extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`${argv.join(" ")} failed (exit ${exitCode ?? "signal"}): ${stderr.trim()}`);
    this.name = "CommandError";
  }
}

export class NsenterExec implements NetnsExec {
  private checked: Promise<void> | undefined;

  constructor(readonly netnsPath: string) {
    if (!netnsPath.startsWith("/"))
      throw new Error(`a network namespace path must be absolute: "${netnsPath}"`);
  }

  query(command: string, args: readonly string[]): Promise<string> {
    return this.run(command, args);
  }

  change(command: string, args: readonly string[], stdin?: string): Promise<string> {
    return this.run(command, args, stdin);
  }

  private async run(command: string, args: readonly string[], stdin?: string): Promise<string> {
    this.checked ??= refuseOwnNamespace(this.netnsPath);
    await this.checked;
    return runCommand("nsenter", [`--net=${this.netnsPath}`, "--", command, ...args], stdin);
  }
}

/** The pod's namespace is never the caller's: a wrong path must not rewire the node's own network. */
async function refuseOwnNamespace(netnsPath: string): Promise<void> {
  const [target, own] = await Promise.all([stat(netnsPath), stat("/proc/self/ns/net")]);
  if (target.dev === own.dev && target.ino === own.ino) {
    throw new Error(`${netnsPath} is the caller's own network namespace`);
  }
}

export function runCommand(command: string, args: readonly string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(Buffer.concat(stdout).toString("utf8"));
      else reject(new CommandError([command, ...args], code, Buffer.concat(stderr).toString("utf8")));
    });
    if (child.stdin) {
      // A command may exit without reading its input; its exit status tells what happened.
      child.stdin.on("error", () => undefined);
      child.stdin.end(stdin);
    }
  });
}

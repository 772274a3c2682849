import { execFile } from "node:child_process";

// Runs host tools (ip, nft, mount, nsenter) without a shell, with a clean environment so nothing from the
// agent's environment changes their behaviour, and errors that carry the tool's own stderr.

export class CommandError extends Error {
  override readonly name = "CommandError";
  constructor(
    readonly command: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`${command.join(" ")} failed (exit ${exitCode ?? "signal"}): ${stderr.trim() || "no output"}`);
  }
}

export interface RunOptions {
  /** Data written to the tool's stdin. */
  input?: string;
  timeoutMs?: number;
}

export type RunCommand = (file: string, args: string[], options?: RunOptions) => Promise<string>;

export const HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Runs a tool and resolves with its stdout, or rejects with a CommandError. */
export const runCommand: RunCommand = (file, args, options = {}) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { env: { PATH: HOST_PATH, LC_ALL: "C" }, timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) {
          const code = typeof error.code === "number" ? error.code : null;
          reject(new CommandError([file, ...args], code, stderr || error.message));
        } else {
          resolve(stdout);
        }
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });

/** Runs a tool and reports whether it succeeded, for probes where failure is an answer. */
export async function succeeds(run: RunCommand, file: string, args: string[]): Promise<boolean> {
  try {
    await run(file, args);
    return true;
  } catch (error) {
    if (error instanceof CommandError) return false;
    throw error;
  }
}

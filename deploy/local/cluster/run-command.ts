// Runs a short host command (ip, sysctl, nft, ...) and returns its result; never through a shell.
import { execFile } from "node:child_process";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCommand(command: string, args: string[], input?: string): Promise<CommandResult> {
  return new Promise((resolvePromise) => {
    const child = execFile(
      command,
      args,
      { encoding: "utf8", maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr: stderr || (error && code !== 0 ? error.message : "") });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Like runCommand, but a non-zero exit is an error naming the command and its stderr. */
export async function mustRun(command: string, args: string[], input?: string): Promise<string> {
  const result = await runCommand(command, args, input);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim()}`);
  }
  return result.stdout;
}

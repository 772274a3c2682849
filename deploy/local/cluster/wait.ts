// Polling with a deadline, for start-up only: the error names what did not happen and where
// its log is, so a failed `make up` says where to look.
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** A log to quote the end of when the wait fails. */
  logPath?: string;
}

export async function waitFor(condition: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(options.intervalMs ?? 500);
  }
  throw new Error(
    `timed out after ${options.timeoutMs / 1000}s waiting for ${options.what}${logHint(options.logPath)}`,
  );
}

function logHint(path: string | undefined): string {
  if (!path) return "";
  const tail = existsSync(path) ? readFileSync(path, "utf8").trimEnd().split("\n").slice(-15).join("\n") : "";
  return `\nlog: ${path}${tail ? `\n--- last lines ---\n${tail}` : " (empty)"}`;
}

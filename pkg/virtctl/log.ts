// virtctl's log lines, as upstream's kubevirt.io/client-go/log writes them to stderr: one JSON object per
// line naming the command's component (log.InitializeLogging("portforward") and so on).
import type { IO } from "./command.js";

export type LogLevel = "info" | "warning" | "error";

export function logLine(io: Pick<IO, "stderr">, component: string, level: LogLevel, msg: string): void {
  io.stderr.write(`${JSON.stringify({ component, level, msg, timestamp: new Date().toISOString() })}\n`);
}

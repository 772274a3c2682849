import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

// Reads kubelet's CRI log files (`<RFC3339Nano> <stdout|stderr> <P|F> <content>` per line) and writes
// them out as `kubectl logs` expects: content only, or prefixed with the timestamp; limited to the last
// tailLines lines of the file, to entries since a time, and to limitBytes; following the file while
// the container runs.

export interface LogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  /** Only entries at or after this time (epoch ms); from sinceSeconds or sinceTime. */
  sinceMs?: number;
}

export interface CriLogLine {
  timestamp: string;
  stream: "stdout" | "stderr";
  partial: boolean;
  content: string;
}

export class LogOptionsError extends Error {}

export function parseCriLine(line: string): CriLogLine | undefined {
  const first = line.indexOf(" ");
  const second = line.indexOf(" ", first + 1);
  const third = line.indexOf(" ", second + 1);
  if (first < 0 || second < 0) return undefined;
  const stream = line.slice(first + 1, second);
  if (stream !== "stdout" && stream !== "stderr") return undefined;
  const tag = third < 0 ? line.slice(second + 1) : line.slice(second + 1, third);
  const content = third < 0 ? "" : line.slice(third + 1);
  return { timestamp: line.slice(0, first), stream, partial: tag.split(":")[0] === "P", content };
}

function formatLine(entry: CriLogLine, timestamps: boolean): string {
  return (timestamps ? `${entry.timestamp} ` : "") + entry.content + (entry.partial ? "" : "\n");
}

const NON_NEGATIVE_INT = /^\d+$/;

/** Parses kubelet's containerLogs query parameters. */
export function parseLogOptions(query: URLSearchParams, now = Date.now()): LogOptions {
  const flag = (name: string): boolean => {
    const value = query.get(name);
    if (value === null || value === "" || value === "false" || value === "0") return false;
    if (value === "true" || value === "1") return true;
    throw new LogOptionsError(`invalid value for ${name}: ${value}`);
  };
  const count = (name: string): number | undefined => {
    const value = query.get(name);
    if (value === null || value === "") return undefined;
    if (!NON_NEGATIVE_INT.test(value)) throw new LogOptionsError(`invalid value for ${name}: ${value}`);
    return Number(value);
  };
  const limitBytes = count("limitBytes");
  if (limitBytes === 0) throw new LogOptionsError("limitBytes: Invalid value: 0: must be greater than 0");
  const sinceSeconds = count("sinceSeconds");
  const sinceTime = query.get("sinceTime");
  if (sinceSeconds !== undefined && sinceTime) {
    throw new LogOptionsError("at most one of `sinceTime` or `sinceSeconds` may be specified");
  }
  let sinceMs: number | undefined;
  if (sinceSeconds !== undefined) sinceMs = now - sinceSeconds * 1000;
  else if (sinceTime) {
    sinceMs = Date.parse(sinceTime);
    if (Number.isNaN(sinceMs)) throw new LogOptionsError(`invalid value for sinceTime: ${sinceTime}`);
  }
  const tailLines = count("tailLines");
  return {
    follow: flag("follow"),
    previous: flag("previous"),
    timestamps: flag("timestamps"),
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  };
}

export interface LogSink {
  /** Writes a chunk (from the container's `stream`); resolves when the sink can take more. */
  write(chunk: string, stream: CriLogLine["stream"]): Promise<void>;
}

export interface FollowControl {
  /** While true, `follow` keeps waiting for more output at the end of the file. */
  isRunning(): boolean;
  signal: AbortSignal;
  pollMs?: number;
}

/** Streams a log file to the sink per the options; resolves at the end (or, when following, once the container stopped). */
export async function streamLog(
  path: string,
  options: LogOptions,
  sink: LogSink,
  control: FollowControl,
): Promise<void> {
  const file = await open(path, "r");
  let remainingBytes = options.limitBytes ?? Infinity;
  const emit = async (entry: CriLogLine): Promise<boolean> => {
    if (options.sinceMs !== undefined && Date.parse(entry.timestamp) < options.sinceMs) return true;
    let text = formatLine(entry, options.timestamps);
    if (Buffer.byteLength(text) > remainingBytes)
      text = Buffer.from(text).subarray(0, remainingBytes).toString();
    remainingBytes -= Buffer.byteLength(text);
    await sink.write(text, entry.stream);
    return remainingBytes > 0;
  };
  try {
    let offset = 0;
    let carry = "";
    const readNewLines = async (): Promise<string[]> => {
      const { size } = await file.stat();
      if (size <= offset) return [];
      const buffer = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const text = carry + buffer.subarray(0, bytesRead).toString("utf8");
      const lines = text.split("\n");
      carry = lines.pop() ?? "";
      return lines;
    };

    let lines = await readNewLines();
    if (options.tailLines !== undefined)
      lines = options.tailLines === 0 ? [] : lines.slice(-options.tailLines);
    for (const line of lines) {
      const entry = parseCriLine(line);
      if (entry && !(await emit(entry))) return;
    }
    if (!options.follow) return;
    const pollMs = control.pollMs ?? 200;
    while (!control.signal.aborted) {
      const running = control.isRunning();
      const more = await readNewLines();
      for (const line of more) {
        const entry = parseCriLine(line);
        if (entry && !(await emit(entry))) return;
      }
      // Stop after the container stopped and its last output has been read.
      if (!running && more.length === 0) return;
      if (more.length === 0)
        await sleep(pollMs, undefined, { signal: control.signal }).catch(() => undefined);
    }
  } finally {
    await file.close();
  }
}

/**
 * The end of a container's output, as kubelet uses it for a FallbackToLogsOnError termination message:
 * at most the last 80 lines and 2048 bytes, without the CRI prefixes.
 */
export function lastLogLines(path: string, maxLines = 80, maxBytes = 2048): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return "";
  }
  const entries = text
    .split("\n")
    .map(parseCriLine)
    .filter((e): e is CriLogLine => e !== undefined);
  const output = entries.map((e) => formatLine(e, false)).join("");
  const lines = output.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const tail = lines.slice(-maxLines).join("\n");
  const bytes = Buffer.from(tail);
  return bytes.length > maxBytes ? bytes.subarray(bytes.length - maxBytes).toString() : tail;
}

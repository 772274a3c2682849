import type { TerminalSize } from "../pod-runtime.js";

// The facts of kubelet's streaming protocols (k8s.io/apimachinery/pkg/util/remotecommand/constants.go,
// k8s.io/api/core/v1 types, k8s.io/kubelet/pkg/cri/streaming): names, query parameters, stream types,
// the statuses written on the error stream, and protocol negotiation (httpstream.Handshake).

export const STREAM_PROTOCOL_V1 = "channel.k8s.io";
export const STREAM_PROTOCOL_V2 = "v2.channel.k8s.io";
export const STREAM_PROTOCOL_V3 = "v3.channel.k8s.io";
export const STREAM_PROTOCOL_V4 = "v4.channel.k8s.io";
export const STREAM_PROTOCOL_V5 = "v5.channel.k8s.io";
/** What kubelet accepts over SPDY (remotecommand.SupportedStreamingProtocols): v5 exists only on WebSockets. */
export const SPDY_REMOTE_COMMAND_PROTOCOLS = [
  STREAM_PROTOCOL_V4,
  STREAM_PROTOCOL_V3,
  STREAM_PROTOCOL_V2,
  STREAM_PROTOCOL_V1,
];
export const PORT_FORWARD_PROTOCOL_V1 = "portforward.k8s.io";

export const HEADER_PROTOCOL_VERSION = "X-Stream-Protocol-Version";
export const HEADER_ACCEPTED_PROTOCOL_VERSIONS = "X-Accepted-Stream-Protocol-Versions";

export const STREAM_TYPE_HEADER = "streamType";
export const PORT_HEADER = "port";
export const PORT_FORWARD_REQUEST_ID_HEADER = "requestID";
export const StreamType = {
  stdin: "stdin",
  stdout: "stdout",
  stderr: "stderr",
  error: "error",
  resize: "resize",
  data: "data",
} as const;

/** WebSocket channel numbers (remotecommand StreamStdIn ... StreamClose). */
export const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** kubelet's stream creation timeout (remotecommand.DefaultStreamCreationTimeout). */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export class StreamOptionsError extends Error {}

/** remotecommand.NewOptions: the apiserver sends input/output/error/tty ("1" for true). */
export function parseStreamOptions(query: URLSearchParams): StreamOptions {
  const tty = query.get("tty") === "1";
  const stdin = query.get("input") === "1";
  const stdout = query.get("output") === "1";
  // A TTY merges stderr into stdout; kubelet drops a stderr request rather than refusing it.
  const stderr = query.get("error") === "1" && !tty;
  if (!stdin && !stdout && !stderr)
    throw new StreamOptionsError("you must specify at least 1 of stdin, stdout, stderr");
  return { stdin, stdout, stderr, tty };
}

/** Comma-separated values of every occurrence of a header, trimmed (httpstream's commaSeparatedHeaderValues). */
export function headerList(value: string | string[] | undefined): string[] {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** The client's first protocol the server also speaks, or undefined. */
export function negotiateProtocol(client: readonly string[], server: readonly string[]): string | undefined {
  return client.find((protocol) => server.includes(protocol));
}

/** metav1.Status as kubelet marshals it onto the error stream (field order as Go's encoder writes it). */
export interface Status {
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export const successStatus = (): Status => ({ metadata: {}, status: "Success" });

/** An exit code other than 0 (remotecommand.ServeExec, with containerd's error text). */
export function nonZeroExitStatus(command: readonly string[], exitCode: number): Status {
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${exitCode}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
  };
}

/** apierrors.NewInternalError. */
export function internalErrorStatus(message: string): Status {
  return {
    metadata: {},
    status: "Failure",
    message: `Internal error occurred: ${message}`,
    reason: "InternalError",
    details: { causes: [{ message }] },
    code: 500,
  };
}

/** How the error stream carries a status: v4+ as JSON, v1-v3 only a failure's message as text. */
export function encodeStatus(status: Status, protocol: string): Buffer | undefined {
  const json =
    protocol === STREAM_PROTOCOL_V4 ||
    protocol === STREAM_PROTOCOL_V5 ||
    protocol.startsWith("v4.") ||
    protocol.startsWith("v5.");
  if (json) return Buffer.from(JSON.stringify(status));
  return status.status === "Success" ? undefined : Buffer.from(status.message ?? "");
}

/**
 * The resize stream: a sequence of JSON objects {"Width":..,"Height":..}, read as Go's json.Decoder
 * reads them (one value after another, whitespace between); ends at the first malformed value.
 */
export async function* terminalSizes(source: AsyncIterable<Buffer | string>): AsyncGenerator<TerminalSize> {
  let text = "";
  for await (const chunk of source) {
    text += chunk.toString();
    for (;;) {
      const end = jsonValueEnd(text);
      if (end === undefined) break;
      const value = text.slice(0, end);
      text = text.slice(end);
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return;
      }
      if (typeof parsed !== "object" || parsed === null) return;
      const { Width, Height } = parsed as { Width?: unknown; Height?: unknown };
      yield { width: typeof Width === "number" ? Width : 0, height: typeof Height === "number" ? Height : 0 };
    }
  }
}

/** The index just past the first complete top-level JSON object in `text` (after whitespace), if any. */
function jsonValueEnd(text: string): number | undefined {
  let start = 0;
  while (start < text.length && /\s/.test(text[start] as string)) start++;
  if (start >= text.length) return undefined;
  if (text[start] !== "{") return start + 1; // not an object: let JSON.parse reject it
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

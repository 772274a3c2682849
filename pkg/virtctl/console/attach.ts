// Joins the terminal to a console stream: stdin → binary messages, binary messages → stdout.
// Ends on the escape byte (^], which Ctrl+5 also sends), on end of stdin, on interrupt, or when
// the server closes the stream. A TTY is put in raw mode so keys reach the guest unprocessed.
import type WebSocket from "ws";
import type { IO } from "../command.js";

const ESCAPE_BYTE = 0x1d;
/** How long a locally ended session waits for the server's close frame before dropping the socket. */
const CLOSE_GRACE_MS = 2_000;

export interface KeepAlive {
  pingIntervalMs: number;
  /** The stream counts as lost when no pong came back for this long. */
  timeoutMs: number;
}

const CLOSE_LABELS: Record<number, string> = {
  1001: "going away",
  1002: "protocol error",
  1003: "unsupported data",
  1006: "abnormal closure",
  1007: "invalid payload data",
  1008: "policy violation",
  1009: "message too big",
  1010: "mandatory extension",
  1011: "internal server error",
  1012: "service restart",
  1013: "try again later",
};

export const DISCONNECTED_MESSAGE =
  "\nYou were disconnected from the console. This could be caused by one of the following:" +
  "\n - the target VM was powered off" +
  "\n - another user connected to the console of the target VM" +
  "\n - network issues\n";

export function attach(socket: WebSocket, io: IO, keepAlive: KeepAlive): Promise<void> {
  const { stdin } = io;
  const rawMode = stdin.isTTY === true && typeof stdin.setRawMode === "function";
  if (rawMode) stdin.setRawMode?.(true);

  return new Promise<void>((resolve, reject) => {
    let lastPong = Date.now();
    const pinger = setInterval(() => {
      if (Date.now() - lastPong > keepAlive.timeoutMs) socket.terminate();
      else socket.ping();
    }, keepAlive.pingIntervalMs);

    const endLocally = (): void => {
      stdin.off("data", onInput);
      socket.close(1000);
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    };
    const onInput = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const escapeAt = bytes.indexOf(ESCAPE_BYTE);
      const forward = escapeAt < 0 ? bytes : bytes.subarray(0, escapeAt);
      if (forward.length > 0) socket.send(forward, { binary: true });
      if (escapeAt >= 0) endLocally();
    };
    const stopInterrupt = io.onInterrupt(endLocally);

    const cleanup = (): void => {
      clearInterval(pinger);
      stopInterrupt();
      stdin.off("data", onInput);
      stdin.off("end", endLocally);
      stdin.pause();
      if (rawMode) stdin.setRawMode?.(false);
    };

    socket.on("pong", () => {
      lastPong = Date.now();
    });
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      // only binary frames carry console bytes, as upstream's reader skips the rest
      if (isBinary) io.stdout.write(data);
    });
    socket.on("close", (code: number, reason: Buffer) => {
      cleanup();
      // 1005 is a close frame without a code: still an orderly end of the stream
      if (code === 1000 || code === 1005) return resolve();
      if (code === 1006) io.stderr.write(DISCONNECTED_MESSAGE);
      reject(new Error(closeErrorText(code, reason.toString("utf8"))));
    });
    socket.on("error", () => {
      // the close event that always follows reports the outcome
    });
    stdin.on("data", onInput);
    stdin.once("end", endLocally);
    stdin.resume();
  });
}

/** The text gorilla/websocket gives a close error, which is what upstream prints. */
function closeErrorText(code: number, reason: string): string {
  const label = CLOSE_LABELS[code];
  const detail = code === 1006 ? "unexpected EOF" : reason;
  return `websocket: close ${code}${label ? ` (${label})` : ""}${detail ? `: ${detail}` : ""}`;
}

import type { IncomingMessage } from "node:http";
import type { Duplex, Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type { TerminalSize } from "../pod-runtime.js";
import { handshake, upgradeToSpdy } from "./http-upgrade.js";
import {
  Channel,
  SPDY_REMOTE_COMMAND_PROTOCOLS,
  STREAM_CREATION_TIMEOUT_MS,
  STREAM_PROTOCOL_V1,
  STREAM_PROTOCOL_V2,
  STREAM_TYPE_HEADER,
  StreamType,
  encodeStatus,
  terminalSizes,
} from "./protocol.js";
import type { Status, StreamOptions } from "./protocol.js";
import type { SpdyStream } from "./spdy-connection.js";
import { BASE64_CHANNEL_PROTOCOL, CHANNEL_PROTOCOL, openChannelConnection } from "./websocket-channels.js";
import type { ChannelProtocol } from "./websocket-channels.js";

// The client's streams of one exec or attach, however they arrived (SPDY streams or WebSocket channels),
// as kubelet's remotecommand connectionContext holds them.

export interface CommandSession {
  readonly protocol: string;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  readonly resizes?: AsyncIterable<TerminalSize>;
  /** Aborted when the client goes away. */
  readonly gone: AbortSignal;
  /** Writes the final status as the protocol carries it, ends every stream and closes the connection. */
  finish(status: Status): Promise<void>;
}

/** Waits for the SPDY streams the options call for (remotecommand's waitForStreams); replies to each. */
export async function openSpdyCommandSession(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: StreamOptions,
  timeoutMs = STREAM_CREATION_TIMEOUT_MS,
): Promise<CommandSession> {
  const protocol = handshake(req, SPDY_REMOTE_COMMAND_PROTOCOLS);
  const connection = upgradeToSpdy(req, socket, head, protocol);
  const resizing = options.tty && protocol !== STREAM_PROTOCOL_V1 && protocol !== STREAM_PROTOCOL_V2;
  const expected =
    1 + Number(options.stdin) + Number(options.stdout) + Number(options.stderr) + Number(resizing);
  const streams = new Map<string, SpdyStream>();
  const abort = new AbortController();
  connection.once("close", () => abort.abort());
  connection.on("error", () => abort.abort());
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.close();
      reject(new Error("timed out waiting for client to create streams"));
    }, timeoutMs);
    let received = 0;
    const onStream = (stream: SpdyStream) => {
      stream.reply();
      const type = stream.header(STREAM_TYPE_HEADER) ?? "";
      if (!Object.values(StreamType).includes(type as never) || type === StreamType.data) return;
      streams.set(type, stream);
      if (++received === expected) done();
    };
    const onClose = () => {
      clearTimeout(timer);
      reject(new Error("connection closed before the client created its streams"));
    };
    const done = () => {
      clearTimeout(timer);
      connection.off("stream", onStream);
      connection.off("close", onClose);
      resolve();
    };
    connection.on("stream", onStream);
    connection.once("close", onClose);
  });
  // v1 kubelets reset the error stream and close stdin right away; only v2+ clients reach this port.
  const stdin = streams.get(StreamType.stdin);
  const resize = streams.get(StreamType.resize);
  const outputs = [streams.get(StreamType.stdout), streams.get(StreamType.stderr)];
  const error = streams.get(StreamType.error);
  for (const stream of streams.values()) stream.on("error", () => undefined);
  return {
    protocol,
    ...(stdin ? { stdin } : {}),
    ...(outputs[0] ? { stdout: outputs[0] } : {}),
    ...(outputs[1] ? { stderr: outputs[1] } : {}),
    ...(resize ? { resizes: terminalSizes(resize) } : {}),
    gone: abort.signal,
    async finish(status) {
      const encoded = encodeStatus(status, protocol);
      if (error && encoded) error.write(encoded);
      const writers = [...outputs, error].filter((s): s is SpdyStream => s !== undefined && !s.destroyed);
      for (const stream of writers) stream.end();
      await Promise.all(writers.map((s) => finished(s, { readable: false }).catch(() => undefined)));
      connection.close();
    },
  };
}

/** What kubelet's remotecommand accepts on WebSockets, plus v5 (the CLOSE channel) as the apiserver speaks it. */
export const WEBSOCKET_REMOTE_COMMAND_PROTOCOLS: Readonly<Record<string, ChannelProtocol>> = {
  "": { base64: false, closeChannel: false },
  [CHANNEL_PROTOCOL]: { base64: false, closeChannel: false },
  [BASE64_CHANNEL_PROTOCOL]: { base64: true, closeChannel: false },
  [`v4.${CHANNEL_PROTOCOL}`]: { base64: false, closeChannel: false },
  [`v4.${BASE64_CHANNEL_PROTOCOL}`]: { base64: true, closeChannel: false },
  [`v5.${CHANNEL_PROTOCOL}`]: { base64: false, closeChannel: true },
};

/** remotecommand's createWebSocketStreams: channels 0-4, an opening empty message on the first output. */
export async function openWebSocketCommandSession(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: StreamOptions,
): Promise<CommandSession> {
  const conn = await openChannelConnection(req, socket, head, WEBSOCKET_REMOTE_COMMAND_PROTOCOLS);
  const opening = options.stdout ? Channel.stdout : options.stderr ? Channel.stderr : Channel.error;
  await conn.send(opening, Buffer.alloc(0));
  const stdout = options.stdout ? conn.writer(Channel.stdout) : undefined;
  const stderr = options.stderr ? conn.writer(Channel.stderr) : undefined;
  return {
    protocol: conn.protocol,
    ...(options.stdin ? { stdin: conn.reader(Channel.stdin) } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    ...(options.tty ? { resizes: terminalSizes(conn.reader(Channel.resize)) } : {}),
    gone: conn.gone,
    async finish(status) {
      for (const writer of [stdout, stderr]) writer?.end();
      await Promise.all([stdout, stderr].map((w) => (w ? finished(w).catch(() => undefined) : undefined)));
      const encoded = encodeStatus(status, conn.protocol);
      if (encoded) await conn.send(Channel.error, encoded).catch(() => undefined);
      conn.close();
    },
  };
}

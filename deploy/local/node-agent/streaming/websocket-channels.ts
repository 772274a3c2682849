import type { IncomingMessage } from "node:http";
import { PassThrough, Writable } from "node:stream";
import type { Duplex, Readable } from "node:stream";
import { WebSocketServer } from "ws";
import type { WebSocket } from "ws";
import { UpgradeError } from "./http-upgrade.js";
import { headerList } from "./protocol.js";

// Kubernetes' WebSocket channel protocol (k8s.io/apimachinery/pkg/util/httpstream/wsstream): every
// message starts with its channel number; in the base64 variants messages are text, the channel an ASCII
// digit and the rest base64. v5.channel.k8s.io adds the CLOSE channel (255): a message [255, n] ends the
// client's side of channel n (stdin) without closing the connection.

export const CHANNEL_PROTOCOL = "channel.k8s.io";
export const BASE64_CHANNEL_PROTOCOL = "base64.channel.k8s.io";
const CLOSE_CHANNEL = 255;

export interface ChannelProtocol {
  base64: boolean;
  /** Whether the CLOSE channel (v5) is understood. */
  closeChannel: boolean;
}

export interface ChannelConnection {
  readonly protocol: string;
  /** Data the client sends on `channel`; ends when the client closes it (v5) or the connection. */
  reader(channel: number): Readable;
  /** A writer sending on `channel`. */
  writer(channel: number): Writable;
  /** Sends one message on `channel` (possibly empty, as kubelet's opening message). */
  send(channel: number, data: Buffer): Promise<void>;
  readonly gone: AbortSignal;
  close(): void;
}

/** Upgrades to a WebSocket speaking one of `protocols` ("" when the client asks for none, as wsstream allows). */
export function openChannelConnection(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  protocols: Readonly<Record<string, ChannelProtocol>>,
): Promise<ChannelConnection> {
  const requested = headerList(req.headers["sec-websocket-protocol"]);
  const chosen = requested.length === 0 ? "" : requested.find((p) => p !== "" && p in protocols);
  if (chosen === undefined || !(chosen in protocols)) {
    return Promise.reject(
      new UpgradeError(
        400,
        `unable to upgrade: requested protocol(s) are not supported: [${requested.join(" ")}]`,
      ),
    );
  }
  const config = protocols[chosen] as ChannelProtocol;
  return new Promise((resolve) => {
    const server = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      handleProtocols: () => chosen || false,
    });
    server.handleUpgrade(req, socket, head, (ws) => resolve(channelConnection(ws, chosen, config)));
  });
}

function channelConnection(ws: WebSocket, protocol: string, config: ChannelProtocol): ChannelConnection {
  const readers = new Map<number, PassThrough>();
  const abort = new AbortController();
  const reader = (channel: number): PassThrough => {
    let stream = readers.get(channel);
    if (!stream) {
      stream = new PassThrough();
      readers.set(channel, stream);
    }
    return stream;
  };
  ws.on("message", (message: Buffer, isBinary: boolean) => {
    let channel: number;
    let data: Buffer;
    if (config.base64) {
      if (isBinary || message.length === 0) return;
      const text = message.toString("utf8");
      channel = text.charCodeAt(0) - 48;
      data = Buffer.from(text.slice(1), "base64");
    } else {
      if (message.length === 0) return;
      channel = message[0] as number;
      data = message.subarray(1);
    }
    if (channel === CLOSE_CHANNEL && config.closeChannel) {
      if (data.length > 0) reader(data[0] as number).end();
      return;
    }
    const target = reader(channel);
    if (!target.writableEnded && data.length > 0) target.write(data);
  });
  const gone = () => {
    abort.abort();
    for (const stream of readers.values()) stream.end();
  };
  ws.on("close", gone);
  ws.on("error", gone);
  const send = (channel: number, data: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      if (ws.readyState !== ws.OPEN) return reject(new Error("connection closed"));
      const frame = config.base64
        ? `${String.fromCharCode(48 + channel)}${data.toString("base64")}`
        : Buffer.concat([Buffer.from([channel]), data]);
      ws.send(frame, { binary: !config.base64 }, (error) => (error ? reject(error) : resolve()));
    });
  return {
    protocol,
    reader,
    writer: (channel) =>
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          send(channel, chunk).then(() => callback(), callback);
        },
      }),
    send,
    gone: abort.signal,
    close: () => {
      if (ws.readyState === ws.OPEN) ws.close(1000);
    },
  };
}

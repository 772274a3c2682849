import type { IncomingMessage } from "node:http";
import { Duplex } from "node:stream";
import { UpgradeError, handshake, upgradeToSpdy } from "./http-upgrade.js";
import {
  PORT_FORWARD_PROTOCOL_V1,
  PORT_FORWARD_REQUEST_ID_HEADER,
  PORT_HEADER,
  STREAM_CREATION_TIMEOUT_MS,
  STREAM_TYPE_HEADER,
  StreamType,
} from "./protocol.js";
import type { SpdyStream } from "./spdy-connection.js";
import { BASE64_CHANNEL_PROTOCOL, CHANNEL_PROTOCOL, openChannelConnection } from "./websocket-channels.js";
import { errorMessage } from "../../../../pkg/util/error-message.js";

// kubelet's port-forward (k8s.io/kubelet/pkg/cri/streaming/portforward): over SPDY the client opens an
// error and a data stream per connection, tied by the requestID header and naming the pod's port; over
// WebSockets the ports are query parameters and each gets a data and an error channel, both opened by
// the port number (2 bytes, little endian). A failed forward is reported as text on the error stream.

/** Relays one connection to `port` in the pod; rejects with why it could not. */
export type Forwarder = (port: number, stream: Duplex) => Promise<void>;

export interface PortForwardTarget {
  pod: string;
  uid: string;
  forward: Forwarder;
}

const forwardError = (target: PortForwardTarget, port: number, error: unknown) =>
  `error forwarding port ${port} to pod ${target.pod}, uid ${target.uid}: ${errorMessage(error)}`;

/** The port a stream's headers name, or the reason kubelet rejects the stream. */
export function streamPort(headers: { port?: string; streamType?: string }): number | string {
  if (!headers.port) return `"${PORT_HEADER}" header is required`;
  if (!/^\d+$/.test(headers.port) || Number(headers.port) > 65535)
    return `unable to parse "${headers.port}" as a port`;
  const port = Number(headers.port);
  if (port < 1) return `port "${headers.port}" must be > 0`;
  if (!headers.streamType) return `"${STREAM_TYPE_HEADER}" header is required`;
  if (headers.streamType !== StreamType.error && headers.streamType !== StreamType.data) {
    return `invalid stream type "${headers.streamType}"`;
  }
  return port;
}

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}

export function serveSpdyPortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: PortForwardTarget,
  timeoutMs = STREAM_CREATION_TIMEOUT_MS,
): void {
  const protocol = handshake(req, [PORT_FORWARD_PROTOCOL_V1]);
  const connection = upgradeToSpdy(req, socket, head, protocol);
  const pairs = new Map<string, StreamPair>();
  connection.on("error", () => undefined);
  connection.once("close", () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    pairs.clear();
  });
  connection.on("stream", (stream) => {
    const type = stream.header(STREAM_TYPE_HEADER);
    const port = streamPort({ port: stream.header(PORT_HEADER), streamType: type });
    if (typeof port === "string") {
      stream.reset();
      return;
    }
    stream.reply();
    stream.on("error", () => undefined);
    // Clients older than requestID pair streams by id: error stream n, data stream n+2.
    const requestID =
      stream.header(PORT_FORWARD_REQUEST_ID_HEADER) ??
      String(type === StreamType.error ? stream.id : stream.id - 2);
    let pair = pairs.get(requestID);
    if (!pair) {
      const created: StreamPair = {
        timer: setTimeout(() => {
          created.error?.end(`(conn, request=${requestID}) timed out waiting for streams`);
          pairs.delete(requestID);
        }, timeoutMs),
      };
      pair = created;
      pairs.set(requestID, pair);
    }
    const slot = type === StreamType.error ? "error" : "data";
    if (pair[slot]) {
      pair.error?.write(`error processing stream for request ${requestID}: ${slot} stream already assigned`);
      return;
    }
    pair[slot] = stream;
    const { data, error } = pair;
    if (!data || !error) return;
    clearTimeout(pair.timer);
    pairs.delete(requestID);
    target.forward(port, data).then(
      () => {
        data.end();
        error.end();
      },
      (failure: unknown) => {
        error.write(forwardError(target, port, failure));
        error.end();
        data.reset();
        setTimeout(() => error.reset(), 100).unref();
      },
    );
  });
}

export const WEBSOCKET_PORT_FORWARD_PROTOCOLS = {
  "": { base64: false, closeChannel: false },
  [`v4.${CHANNEL_PROTOCOL}`]: { base64: false, closeChannel: false },
  [`v4.${BASE64_CHANNEL_PROTOCOL}`]: { base64: true, closeChannel: false },
};

/** portforward.NewV4Options: the ports of the query, each forwarded once. */
export function websocketPorts(query: URLSearchParams): number[] {
  const values = query.getAll(PORT_HEADER).flatMap((v) => v.split(","));
  if (values.length === 0) throw new UpgradeError(400, `query parameter "${PORT_HEADER}" is required`);
  return values.map((value) => {
    const port = streamPort({ port: value.trim(), streamType: StreamType.data });
    if (typeof port === "string") throw new UpgradeError(400, port);
    return port;
  });
}

export async function serveWebSocketPortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  ports: number[],
  target: PortForwardTarget,
): Promise<void> {
  const conn = await openChannelConnection(req, socket, head, WEBSOCKET_PORT_FORWARD_PROTOCOLS);
  ports.forEach((port, i) => {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    const dataChannel = 2 * i;
    const errorChannel = 2 * i + 1;
    void (async () => {
      await conn.send(dataChannel, portBytes);
      await conn.send(errorChannel, portBytes);
      const stream = Duplex.from({ readable: conn.reader(dataChannel), writable: conn.writer(dataChannel) });
      try {
        await target.forward(port, stream);
      } catch (failure) {
        await conn
          .send(errorChannel, Buffer.from(forwardError(target, port, failure)))
          .catch(() => undefined);
      }
    })().catch(() => undefined);
  });
}

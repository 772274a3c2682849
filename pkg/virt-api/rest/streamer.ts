// The client side of a stream subresource (upstream pkg/virt-api/rest/streamer.go, the raw streamer):
// the client's WebSocket handshake is checked and answered here, and once virt-handler's end is open the
// two connections are spliced byte for byte, so frames, pings and pongs pass through untouched between
// the client and virt-handler, which answers the pings.
import { createHash } from "node:crypto";
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Status } from "./status.js";

export const PLAIN_STREAM_PROTOCOL = "plain.kubevirt.io";
const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const NOT_WEBSOCKET = "websocket: the client is not using the websocket protocol: ";

const tokens = (header: string | string[] | undefined): string[] =>
  (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean);

/** The reason a request is not a WebSocket handshake we accept, in gorilla/websocket's words. */
export function clientHandshakeError(request: IncomingMessage): string | undefined {
  const { headers } = request;
  if (!tokens(headers.connection).includes("upgrade"))
    return `${NOT_WEBSOCKET}'upgrade' token not found in 'Connection' header`;
  if (!tokens(headers.upgrade).includes("websocket"))
    return `${NOT_WEBSOCKET}'websocket' token not found in 'Upgrade' header`;
  if (request.method !== "GET") return `${NOT_WEBSOCKET}request method is not GET`;
  if (!tokens(headers["sec-websocket-version"]).includes("13"))
    return "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header";
  const key = headers["sec-websocket-key"];
  if (
    typeof key !== "string" ||
    Buffer.from(key, "base64").length !== 16 ||
    !/^[A-Za-z0-9+/]{22}==$/.test(key)
  )
    return "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte length";
  return undefined;
}

export const acceptKey = (key: string): string =>
  createHash("sha1")
    .update(key + WEBSOCKET_GUID)
    .digest("base64");

/** The subprotocol to answer with: the plain stream protocol when the client offered it, else none. */
export function selectSubprotocol(request: IncomingMessage): string | undefined {
  const offered = (request.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
  return offered.includes(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : undefined;
}

/** Completes the client's handshake (checked by clientHandshakeError) on its raw socket. */
export function acceptClientHandshake(request: IncomingMessage, socket: Duplex): void {
  const protocol = selectSubprotocol(request);
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\n" +
      "Upgrade: websocket\r\n" +
      "Connection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${acceptKey(String(request.headers["sec-websocket-key"]))}\r\n` +
      (protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : "") +
      "\r\n",
  );
}

/** Answers a request that never gets upgraded with a Status, then closes the connection. */
export function writeStatus(socket: Duplex, status: Status): void {
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

/** How long a side that was ended gets to flush and close before it is dropped. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Copies bytes both ways (each side's `head`, read past its handshake, first) until either side ends;
 * then the other is ended too after what is buffered is flushed, as upstream closes both on the first
 * result. Resolves once both are closed.
 */
export function splice(
  client: Duplex,
  clientHead: Buffer,
  server: Duplex,
  serverHead: Buffer,
): Promise<void> {
  const closed = (side: Duplex) =>
    new Promise<void>((resolve) => (side.destroyed ? resolve() : side.once("close", () => resolve())));
  const link = (from: Duplex, to: Duplex) => {
    from.once("end", () => {
      to.end();
      setTimeout(() => to.destroy(), CLOSE_GRACE_MS).unref();
    });
    from.on("error", () => to.destroy());
    from.once("close", () => {
      if (!from.readableEnded) to.destroy();
    });
    from.pipe(to, { end: false });
  };
  if (serverHead.length > 0) client.write(serverHead);
  if (clientHead.length > 0) server.write(clientHead);
  link(client, server);
  link(server, client);
  return Promise.all([closed(client), closed(server)]).then(() => undefined);
}

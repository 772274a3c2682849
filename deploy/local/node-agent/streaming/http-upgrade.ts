import { STATUS_CODES } from "node:http";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { SpdyConnection } from "./spdy-connection.js";
import {
  HEADER_ACCEPTED_PROTOCOL_VERSIONS,
  HEADER_PROTOCOL_VERSION,
  headerList,
  negotiateProtocol,
} from "./protocol.js";

// The HTTP side of an upgrade on a socket Node handed over (the server's "upgrade" event): plain error
// answers before the switch, httpstream.Handshake's protocol negotiation, and the SPDY/3.1 switch
// (apimachinery's spdy.responseUpgrader).

export const SPDY_UPGRADE = "SPDY/3.1";

/** An HTTP error answer on a raw socket, then closes it (Go's http.Error: text/plain, the message and a newline). */
export function writeHttpError(
  socket: Duplex,
  status: number,
  message: string,
  headers: Record<string, string[]> = {},
): void {
  const body = `${message}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "Content-Type: text/plain; charset=utf-8",
    "X-Content-Type-Options: nosniff",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    ...Object.entries(headers).flatMap(([name, values]) => values.map((v) => `${name}: ${v}`)),
  ];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

export class UpgradeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (
    headerList(req.headers.connection).some((v) => v.toLowerCase() === "upgrade") &&
    (req.headers.upgrade ?? "").toLowerCase() === "websocket"
  );
}

/** httpstream.Handshake: the negotiated protocol, or an UpgradeError kubelet would answer with. */
export function handshake(req: IncomingMessage, serverProtocols: readonly string[]): string {
  const client = headerList(req.headers[HEADER_PROTOCOL_VERSION.toLowerCase()]);
  if (client.length === 0)
    throw new UpgradeError(400, `unable to upgrade: ${HEADER_PROTOCOL_VERSION} is required`);
  const protocol = negotiateProtocol(client, serverProtocols);
  if (protocol === undefined) {
    throw new UpgradeError(
      403,
      `unable to upgrade: unable to negotiate protocol: client supports [${client.join(" ")}], server accepts [${serverProtocols.join(" ")}]`,
      { [HEADER_ACCEPTED_PROTOCOL_VERSIONS]: [...serverProtocols] },
    );
  }
  return protocol;
}

/** Answers 101 and speaks SPDY/3.1 on the socket; `head` is what Node read past the request. */
export function upgradeToSpdy(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  protocol: string,
): SpdyConnection {
  const connection = (req.headers.connection ?? "").toLowerCase();
  const upgrade = (req.headers.upgrade ?? "").toLowerCase();
  if (!connection.includes("upgrade") || !upgrade.includes(SPDY_UPGRADE.toLowerCase())) {
    throw new UpgradeError(400, "unable to upgrade: missing upgrade headers in request");
  }
  socket.write(
    [
      "HTTP/1.1 101 Switching Protocols",
      "Connection: Upgrade",
      `Upgrade: ${SPDY_UPGRADE}`,
      `${HEADER_PROTOCOL_VERSION}: ${protocol}`,
      "",
      "",
    ].join("\r\n"),
  );
  return new SpdyConnection(socket, true, head);
}

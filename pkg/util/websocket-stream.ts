// A byte stream carried as WebSocket binary messages (client-go's kvcorev1 CopyTo/CopyFrom, as virt-api's
// NewWebsocketStreamer and virtctl's stream helpers use them): messages go to the connection and what the
// connection reads comes back as messages; text messages are skipped as upstream's reader skips them. With
// keepalive (virt-api's side), the peer is pinged and dropped when no pong came for a while. Either side
// ending ends the other, so a peer that goes away frees the connection at once.
import type { Duplex } from "node:stream";
import type WebSocket from "ws";

export interface KeepAlive {
  pingIntervalMs: number;
  /** The client counts as gone when no pong came back for this long. */
  timeoutMs: number;
}

/** Upstream's keepAliveClientStream: a ping a second, a minute's read deadline renewed by each pong. */
export const DEFAULT_KEEPALIVE: KeepAlive = { pingIntervalMs: 1_000, timeoutMs: 60_000 };

/** Past this much unsent data towards the client, the server side is paused until the client catches up. */
const HIGH_WATER = 1 << 20;
const LOW_WATER = 1 << 16;
/** How long a client told to close gets to answer before it is dropped. */
const CLOSE_GRACE_MS = 5_000;

/** Streams between `client` and `server` until either ends; resolves once both are closed. */
export function streamMessages(
  client: WebSocket,
  server: Duplex,
  keepAlive = DEFAULT_KEEPALIVE,
): Promise<void> {
  let lastPong = Date.now();
  const pinger = setInterval(() => {
    if (Date.now() - lastPong > keepAlive.timeoutMs) client.terminate();
    else client.ping("keep alive");
  }, keepAlive.pingIntervalMs);
  let ending = false;
  const endClient = () => {
    if (ending) return;
    ending = true;
    if (client.readyState === client.OPEN) {
      client.close(1000);
      setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
    } else if (client.readyState !== client.CLOSED) client.terminate();
  };
  client.on("pong", () => (lastPong = Date.now()));
  client.on("message", (data: Buffer, isBinary: boolean) => {
    if (!isBinary || server.destroyed) return;
    if (!server.write(data)) {
      client.pause();
      server.once("drain", () => client.resume());
    }
  });
  server.on("data", (chunk: Buffer) => {
    if (client.readyState !== client.OPEN) return;
    client.send(chunk, { binary: true });
    if (client.bufferedAmount > HIGH_WATER) {
      server.pause();
      resumeWhenDrained(client, () => server.resume());
    }
  });
  server.once("end", endClient);
  server.once("close", endClient);
  server.on("error", endClient);
  client.on("error", () => server.destroy());
  const clientClosed = new Promise<void>((resolve) =>
    client.once("close", () => {
      clearInterval(pinger);
      server.destroy();
      resolve();
    }),
  );
  const serverClosed = new Promise<void>((resolve) =>
    server.destroyed ? resolve() : server.once("close", () => resolve()),
  );
  return Promise.all([clientClosed, serverClosed]).then(() => undefined);
}

function resumeWhenDrained(client: WebSocket, resume: () => void): void {
  const check = () => {
    if (client.readyState !== client.OPEN || client.bufferedAmount <= LOW_WATER) resume();
    else setTimeout(check, 10);
  };
  setTimeout(check, 10);
}

// The local ends of virtctl port-forward (upstream pkg/virtctl/portforward/tcp.go and udp.go): a TCP
// listener that opens one tunnel per accepted connection, and a UDP socket that opens one tunnel per
// client address and carries each datagram as one message.
import { createSocket, type RemoteInfo } from "node:dgram";
import net from "node:net";
import type WebSocket from "ws";
import { errorMessage } from "../../util/error-message.js";
import { streamMessages } from "../../util/websocket-stream.js";

export interface Tunnels {
  /** Opens a new stream to the remote port. */
  open(): Promise<WebSocket>;
  log(level: "info" | "error", message: string): void;
  /** How the target is named in upstream's "can't access" message: `vmi/name.namespace`. */
  target: string;
}

const isIPv6 = (address: string) => net.isIPv6(address);
const hostPort = (address: string, port: number) =>
  isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;

/** Go's wording for a listen that failed. */
export function listenError(
  network: string,
  address: string,
  port: number,
  error: NodeJS.ErrnoException,
): Error {
  const words: Record<string, string> = {
    EADDRINUSE: "bind: address already in use",
    EACCES: "bind: permission denied",
    EADDRNOTAVAIL: "bind: cannot assign requested address",
  };
  const cause = (error.code && words[error.code]) ?? error.message;
  return new Error(`listen ${network} ${hostPort(address, port)}: ${cause}`);
}

/** A listening forwarder; close() stops it and ends the tunnels it has open. */
export interface Forwarder {
  close(): void;
}

export async function forwardTCP(
  address: string,
  local: number,
  remote: number,
  tunnels: Tunnels,
): Promise<Forwarder> {
  const open = new Set<net.Socket>();
  const server = net.createServer((connection) => {
    open.add(connection);
    connection.once("close", () => open.delete(connection));
    connection.on("error", () => connection.destroy());
    tunnels.log("info", `opening new tcp tunnel to ${remote}`);
    tunnels.open().then(
      (stream) => {
        tunnels.log("info", `handling tcp connection for ${local}`);
        void streamMessages(stream, connection);
      },
      (error: unknown) => {
        // Upstream stops accepting here; a tunnel that failed once is no reason to refuse the next one.
        tunnels.log("error", `can't access ${tunnels.target}: ${errorMessage(error)}`);
        connection.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError("tcp", address, local, error)));
    server.listen(local, address, () => resolve());
  });
  server.on("error", (error) => tunnels.log("error", `error accepting connection: ${error.message}`));
  return {
    close: () => {
      server.close();
      // Each connection's end ends its stream.
      for (const connection of open) connection.destroy();
    },
  };
}

interface UDPClient {
  stream: Promise<WebSocket>;
}

export async function forwardUDP(
  address: string,
  local: number,
  remote: number,
  tunnels: Tunnels,
): Promise<Forwarder> {
  const socket = createSocket(isIPv6(address) ? "udp6" : "udp4");
  const clients = new Map<string, UDPClient>();
  const clientOf = (from: RemoteInfo): UDPClient => {
    const id = hostPort(from.address, from.port);
    const known = clients.get(id);
    if (known) return known;
    tunnels.log("info", `opening new udp tunnel to ${remote}`);
    const stream = tunnels.open();
    const client = { stream };
    clients.set(id, client);
    stream.then(
      (ws) => {
        ws.on("message", (data: Buffer, isBinary: boolean) => {
          if (isBinary) socket.send(data, from.port, from.address);
        });
        ws.once("close", () => clients.delete(id));
        ws.on("error", () => ws.terminate());
      },
      (error: unknown) => {
        tunnels.log("error", `can't access ${tunnels.target}: ${errorMessage(error)}`);
        clients.delete(id);
      },
    );
    return client;
  };
  socket.on("message", (datagram, from) => {
    // Datagrams that arrive while the tunnel is opened wait for it, in order.
    void clientOf(from).stream.then(
      (ws) => ws.readyState === ws.OPEN && ws.send(datagram, { binary: true }),
      () => undefined,
    );
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", (error: NodeJS.ErrnoException) => reject(listenError("udp", address, local, error)));
    socket.bind(local, address, () => resolve());
  });
  socket.on("error", (error) => tunnels.log("error", error.message));
  return {
    close: () => {
      socket.close();
      for (const client of clients.values())
        void client.stream.then(
          (ws) => ws.close(1000),
          () => undefined,
        );
    },
  };
}

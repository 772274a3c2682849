import net from "node:net";
import type { Duplex } from "node:stream";
import { SpdyConnection } from "./spdy-connection.js";
import type { SpdyStream } from "./spdy-connection.js";

// The client half of kubelet's SPDY streaming for tests: sends the upgrade request as client-go's
// SpdyRoundTripper does and, on 101, speaks SPDY on the socket.

export interface UpgradeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  connection?: SpdyConnection;
}

export function requestUpgrade(
  socket: Duplex,
  path: string,
  headers: Record<string, string>,
  method = "POST",
): Promise<UpgradeAnswer> {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    "Host: kubelet",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [statusLine, ...headerLines] = buffered.subarray(0, end).toString().split("\r\n");
      const status = Number(statusLine?.split(" ")[1]);
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).toLowerCase();
        parsed[name] = parsed[name]
          ? `${parsed[name]}, ${line.slice(colon + 1).trim()}`
          : line.slice(colon + 1).trim();
      }
      const rest = buffered.subarray(end + 4);
      socket.off("data", onData);
      socket.off("error", reject);
      if (status === 101) {
        resolve({ status, headers: parsed, body: "", connection: new SpdyConnection(socket, false, rest) });
        return;
      }
      let body = rest.toString();
      socket.on("data", (more: Buffer) => (body += more.toString()));
      socket.once("end", () => resolve({ status, headers: parsed, body }));
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
}

export async function spdyUpgrade(port: number, path: string, protocols: string[]): Promise<UpgradeAnswer> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  return requestUpgrade(socket, path, {
    Connection: "Upgrade",
    Upgrade: "SPDY/3.1",
    ...(protocols.length > 0 ? { "X-Stream-Protocol-Version": protocols.join(",") } : {}),
  });
}

/** Opens a stream and waits for the server's reply, as client-go's CreateStream does. */
export async function openAndWait(
  connection: SpdyConnection,
  headers: Record<string, string>,
): Promise<SpdyStream> {
  const stream = connection.openStream(Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])));
  await stream.replyReceived;
  return stream;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += (chunk as Buffer).toString();
  return text;
}

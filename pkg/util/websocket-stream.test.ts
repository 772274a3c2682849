import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { streamMessages } from "./websocket-stream.js";

/** A WebSocket pair over loopback: `near` is streamed to `server` by streamMessages, `far` is the peer. */
async function pair(): Promise<{ near: WebSocket; far: WebSocket; close(): Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const port = (wss.address() as net.AddressInfo).port;
  const nearSocket = new Promise<WebSocket>((resolve) => wss.once("connection", resolve));
  const far = new WebSocket(`ws://127.0.0.1:${port}`, { autoPong: false });
  await new Promise((resolve) => far.once("open", resolve));
  return { near: await nearSocket, far, close: () => new Promise((resolve) => wss.close(() => resolve())) };
}

/** A TCP connection pair: `inner` is the server side handed to streamMessages. */
async function tcpPair(): Promise<{ inner: net.Socket; outer: net.Socket; server: net.Server }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const outer = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  return { inner: await accepted, outer, server };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("streamMessages", () => {
  it("carries binary messages both ways, skips text ones, and closes the peer when the connection ends", async () => {
    const ws = await pair();
    const tcp = await tcpPair();
    cleanups.push(ws.close, () => void tcp.server.close());
    const done = streamMessages(ws.near, tcp.inner);
    let fromPeer = "";
    tcp.outer.on("data", (chunk: Buffer) => (fromPeer += chunk.toString()));
    const toPeer: string[] = [];
    ws.far.on("message", (data: Buffer, isBinary) => toPeer.push(`${isBinary ? "binary" : "text"}:${data}`));
    ws.far.send("skipped");
    ws.far.send(Buffer.from("kept"), { binary: true });
    await until(() => fromPeer === "kept");
    tcp.outer.write("reply");
    await until(() => toPeer.length === 1);
    expect(toPeer).toEqual(["binary:reply"]);
    const closed = new Promise<number>((resolve) => ws.far.once("close", resolve));
    tcp.outer.end();
    expect(await closed).toBe(1000);
    await done;
  });

  it("destroys the connection when the peer goes away without a word", async () => {
    const ws = await pair();
    const tcp = await tcpPair();
    cleanups.push(ws.close, () => void tcp.server.close());
    const done = streamMessages(ws.near, tcp.inner);
    const ended = new Promise((resolve) => tcp.outer.once("close", resolve));
    ws.far.terminate();
    await ended;
    await done;
    expect(tcp.inner.destroyed).toBe(true);
  });

  it("with keepalive, drops a peer whose pongs stop coming", async () => {
    const ws = await pair();
    const tcp = await tcpPair();
    cleanups.push(ws.close, () => void tcp.server.close());
    let pings = 0;
    ws.far.on("ping", () => pings++);
    const done = streamMessages(ws.near, tcp.inner, { pingIntervalMs: 20, timeoutMs: 150 });
    await done;
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(tcp.inner.destroyed).toBe(true);
  });
});

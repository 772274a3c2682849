// Clients that come and go must not leave anything open: 200 vnc and 200 portforward sessions through the
// real virt-api and virt-handler servers (testing/stream-stack.ts, both in this process), half of them
// ended with a close frame and half dropped mid-stream, some while the guest is still pouring data out.
// Afterwards this process holds as many file descriptors as before, and the guest side has no connection
// left: what virt-handler and virt-api opened for each session (the VNC unix socket, the TLS link between
// them, the TCP connection to the guest) was closed.
import { readdirSync } from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VNC_SOCKET_NAME } from "../../virt-handler/rest/console.js";
import { runningVMI, StreamStack, type Opened } from "../../../test/support/stream-stack.js";

const CYCLES = 200;
let stack: StreamStack;
let vnc: net.Server;
let guest: net.Server;
let firehose: net.Server;
let guestPort = 0;
let firehosePort = 0;

const openFDs = () => readdirSync("/proc/self/fd").length;
const connections = (server: net.Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

/** Polls `what` until it is at most `expected` (or 5 s have passed); the last value. */
async function settled(what: () => Promise<number> | number, expected: number): Promise<number> {
  let value = await what();
  for (let i = 0; i < 200 && value > expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await what();
  }
  return value;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  stack = await StreamStack.start();
  vnc = net.createServer((connection) => {
    connection.on("error", () => undefined);
    connection.write("RFB 003.008\n");
    connection.pipe(connection);
  });
  await stack.serveLauncherSocket(vnc, VNC_SOCKET_NAME);
  guest = net.createServer((connection) => {
    connection.on("error", () => undefined);
    connection.pipe(connection);
  });
  guestPort = await listen(guest);
  // A guest that never stops sending: the client goes away while virt-api is backed up.
  firehose = net.createServer((connection) => {
    connection.on("error", () => undefined);
    const chunk = Buffer.alloc(64 << 10, 0x61);
    const pour = () => {
      while (!connection.destroyed && connection.write(chunk));
      if (!connection.destroyed) connection.once("drain", pour);
    };
    pour();
  });
  firehosePort = await listen(firehose);
  stack.handlerVMIs.set("default/testvmi", runningVMI("testvmi"));
  stack.apiVMIs.set("testvmi", {
    ...runningVMI("testvmi"),
    status: { ...runningVMI("testvmi").status, interfaces: [{ name: "default", ipAddress: "127.0.0.1" }] },
  });
});

afterAll(async () => {
  await stack.stop();
  await Promise.all([vnc, guest, firehose].map((server) => new Promise((resolve) => server.close(resolve))));
});

/** One session: wait for the first bytes, then leave politely or drop the connection. */
async function cycle(url: string, polite: boolean, send?: string): Promise<void> {
  const session: Opened = await stack.opened(url);
  if (send) session.socket.send(Buffer.from(send));
  for (let i = 0; i < 500 && session.received.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  expect(session.received.length).toBeGreaterThan(0);
  if (polite) session.socket.close(1000);
  else session.socket.terminate();
  await session.closed;
}

describe("connect/disconnect cycles", () => {
  it(`${CYCLES} vnc and ${CYCLES} portforward sessions leave no descriptor or connection behind`, async () => {
    // One of each first, so that lazily made things (TLS contexts, the upgraders) count in the baseline.
    await cycle(stack.url("vnc"), true);
    await cycle(stack.url(`portforward/${guestPort}`), true, "warm");
    const quiet = async () => {
      for (const server of [vnc, guest, firehose]) await settled(() => connections(server), 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await quiet();
    const baseline = openFDs();
    for (let i = 0; i < CYCLES; i++) await cycle(stack.url("vnc"), i % 2 === 0);
    for (let i = 0; i < CYCLES; i++) {
      const port = i % 10 === 9 ? firehosePort : guestPort;
      await cycle(stack.url(`portforward/${port}`), i % 2 === 0, `ping ${i}`);
    }
    expect(await settled(() => connections(vnc), 0)).toBe(0);
    expect(await settled(() => connections(guest), 0)).toBe(0);
    expect(await settled(() => connections(firehose), 0)).toBe(0);
    // A descriptor kept per session would show as hundreds more.
    expect(await settled(openFDs, baseline)).toBeLessThanOrEqual(baseline);
  }, 180_000);
});

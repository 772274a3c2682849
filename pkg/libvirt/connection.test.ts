import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LibvirtConnection } from "./connection.js";
import type { CallTarget, IncomingMessage } from "./connection.js";
import { LibvirtConnectionClosedError, LibvirtError, LibvirtProtocolError } from "./errors.js";
import {
  KEEPALIVE_PROC_PING,
  KEEPALIVE_PROC_PONG,
  KEEPALIVE_PROGRAM,
} from "./generated/keepalive-protocol.js";
import {
  REMOTE_PROC_CONNECT_GET_HOSTNAME,
  REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
  REMOTE_PROGRAM,
} from "./generated/remote-protocol.js";
import {
  VIR_NET_ERROR,
  VIR_NET_MESSAGE,
  VIR_NET_OK,
  VirNetMessageErrorCodec,
} from "./generated/virnet-protocol.js";
import { FakeDaemon } from "./testdata/fake-daemon.js";
import { encodeXdr, string } from "./xdr.js";

const hostname: CallTarget = {
  program: REMOTE_PROGRAM,
  version: 1,
  procedure: REMOTE_PROC_CONNECT_GET_HOSTNAME,
  name: "REMOTE_PROC_CONNECT_GET_HOSTNAME",
};

let daemon: FakeDaemon;
let connection: LibvirtConnection;

beforeEach(async () => {
  daemon = new FakeDaemon();
  await daemon.start();
  connection = await LibvirtConnection.open(daemon.socketPath);
});

afterEach(async () => {
  await connection.close();
  await daemon.stop();
});

describe("LibvirtConnection", () => {
  it("matches replies to concurrent calls by serial, whatever their order", async () => {
    const calls = [1, 2, 3].map((n) => connection.call(hostname, encodeXdr(string(), `call ${n}`)));
    const received = await daemon.waitForPackets(3);
    expect(new Set(received.map((p) => p.header.serial)).size).toBe(3);
    for (const packet of [...received].reverse()) daemon.reply(packet, packet.payload);
    const answers = await Promise.all(calls);
    expect(answers.map((payload) => payload.subarray(4, 10).toString())).toEqual([
      "call 1",
      "call 2",
      "call 3",
    ]);
  });

  it("turns an error reply into a LibvirtError with libvirt's code, domain and message", async () => {
    const pending = connection.call(hostname, new Uint8Array());
    const [packet] = await daemon.waitForPackets(1);
    const error = {
      code: 42,
      domain: 10,
      message: "Domain not found: no domain with matching name 'nope'",
      level: 2,
      dom: null,
      str1: "x",
      str2: null,
      str3: null,
      int1: 0,
      int2: 0,
      net: null,
    };
    daemon.reply(packet!, encodeXdr(VirNetMessageErrorCodec, error), VIR_NET_ERROR);
    const failure = await pending.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LibvirtError);
    expect(failure).toMatchObject({
      code: 42,
      codeName: "VIR_ERR_NO_DOMAIN",
      domain: 10,
      domainName: "VIR_FROM_QEMU",
      message: "Domain not found: no domain with matching name 'nope'",
    });
  });

  it("answers the daemon's keepalive PING with a PONG", async () => {
    daemon.send({
      prog: KEEPALIVE_PROGRAM,
      vers: 1,
      proc: KEEPALIVE_PROC_PING,
      type: VIR_NET_MESSAGE,
      serial: 0,
      status: VIR_NET_OK,
    });
    const [pong] = await daemon.waitForPackets(1);
    expect(pong!.header).toMatchObject({
      prog: KEEPALIVE_PROGRAM,
      proc: KEEPALIVE_PROC_PONG,
      type: VIR_NET_MESSAGE,
    });
    expect(connection.pingsAnswered).toBe(1);
  });

  it("hands event messages to listeners", async () => {
    const messages: IncomingMessage[] = [];
    connection.onMessage((message) => messages.push(message));
    const header = {
      prog: REMOTE_PROGRAM,
      vers: 1,
      proc: REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
      type: VIR_NET_MESSAGE,
      serial: 0,
      status: VIR_NET_OK,
    } as const;
    daemon.send(header, Buffer.from("00000005", "hex"));
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]).toMatchObject({
      program: REMOTE_PROGRAM,
      procedure: REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
    });
    expect(messages[0]!.payload.toString("hex")).toBe("00000005");
  });

  it("fails waiting calls and later calls once the daemon hangs up", async () => {
    const failure = connection.call(hostname, new Uint8Array()).catch((e: unknown) => e);
    await daemon.waitForPackets(1);
    daemon.hangUp();
    expect(await failure).toBeInstanceOf(LibvirtConnectionClosedError);
    expect(await connection.closed).toBeInstanceOf(LibvirtConnectionClosedError);
    expect(connection.isOpen).toBe(false);
    await expect(connection.call(hostname, new Uint8Array())).rejects.toThrow(/the connection is closed/);
  });

  it("closes on a stream it cannot parse, failing waiting calls with the reason", async () => {
    const failure = connection.call(hostname, new Uint8Array()).catch((e: unknown) => e);
    await daemon.waitForPackets(1);
    daemon.writeRaw(Buffer.from("00000001", "hex"));
    expect(String(await failure)).toMatch(/packet length 1 is outside/);
    expect(await connection.closed).toBeInstanceOf(LibvirtProtocolError);
  });

  it("closes when a reply answers no call", async () => {
    daemon.send({ prog: REMOTE_PROGRAM, vers: 1, proc: 4, type: 1, serial: 99, status: VIR_NET_OK });
    expect((await connection.closed)?.message).toMatch(/reply to unknown call: serial 99/);
  });

  it("close() resolves closed with null and fails calls still waiting", async () => {
    const failure = connection.call(hostname, new Uint8Array()).catch((e: unknown) => e);
    await daemon.waitForPackets(1);
    await connection.close();
    expect(await failure).toBeInstanceOf(LibvirtConnectionClosedError);
    expect(await connection.closed).toBeNull();
  });
});

describe("client-side keepalive", () => {
  it("pings a silent daemon and gives up after `count` unanswered pings", async () => {
    const watched = await LibvirtConnection.open(daemon.socketPath, {
      keepAlive: { intervalMs: 20, count: 2 },
    });
    const cause = await watched.closed;
    expect(cause?.message).toMatch(/answered none of 2 keepalive pings/);
    const pings = daemon.received.filter((p) => p.header.prog === KEEPALIVE_PROGRAM);
    expect(pings.length).toBeGreaterThanOrEqual(2);
    expect(
      pings.every((p) => p.header.proc === KEEPALIVE_PROC_PING && p.header.type === VIR_NET_MESSAGE),
    ).toBe(true);
  });

  it("stays open while the daemon answers", async () => {
    const watched = await LibvirtConnection.open(daemon.socketPath, {
      keepAlive: { intervalMs: 20, count: 2 },
    });
    const pong = {
      prog: KEEPALIVE_PROGRAM,
      vers: 1,
      proc: KEEPALIVE_PROC_PONG,
      type: VIR_NET_MESSAGE,
      serial: 0,
      status: VIR_NET_OK,
    } as const;
    const answering = setInterval(() => daemon.send(pong), 10);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(answering);
    expect(watched.isOpen).toBe(true);
    await watched.close();
  });
});

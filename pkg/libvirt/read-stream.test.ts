// Streams the daemon sends after a call (virDomainScreenshot), against a scripted daemon that plays
// libvirt's side of remote_daemon_stream.c.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LibvirtConnection } from "./connection.js";
import type { CallTarget } from "./connection.js";
import { LibvirtConnectionClosedError, LibvirtError } from "./errors.js";
import type { Packet } from "./framing.js";
import {
  REMOTE_PROC_CONNECT_GET_HOSTNAME,
  REMOTE_PROC_DOMAIN_SCREENSHOT,
  REMOTE_PROGRAM,
} from "./generated/remote-protocol.js";
import {
  VIR_NET_ERROR,
  VIR_NET_OK,
  VIR_NET_STREAM,
  VirNetMessageErrorCodec,
} from "./generated/virnet-protocol.js";
import { FakeDaemon } from "./testdata/fake-daemon.js";
import { encodeXdr, string } from "./xdr.js";

const screenshot: CallTarget = {
  program: REMOTE_PROGRAM,
  version: 1,
  procedure: REMOTE_PROC_DOMAIN_SCREENSHOT,
  name: "REMOTE_PROC_DOMAIN_SCREENSHOT",
};
const hostname: CallTarget = { ...screenshot, procedure: REMOTE_PROC_CONNECT_GET_HOSTNAME, name: "hostname" };
const LIMITS = { maxBytes: 1 << 20, timeoutMs: 5_000 };
const REPLY = encodeXdr(string(), "image/png");

const libvirtError = (message: string) =>
  encodeXdr(VirNetMessageErrorCodec, {
    code: 1,
    domain: 10,
    message,
    level: 2,
    dom: null,
    str1: null,
    str2: null,
    str3: null,
    int1: 0,
    int2: 0,
    net: null,
  });

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

/** The packets the client sent after the first `count`. */
const sentAfter = (count: number): Packet[] => daemon.received.slice(count);

describe("LibvirtConnection.download", () => {
  it("collects data sent before and after the reply, finishes the stream and waits for the confirmation", async () => {
    const download = connection.download(screenshot, new Uint8Array(), LIMITS);
    const [call] = await daemon.waitForPackets(1);
    daemon.stream(call!, Buffer.from("abc"));
    daemon.reply(call!, REPLY);
    daemon.stream(call!, Buffer.from("def"));
    daemon.endStream(call!);
    const [, finish] = await daemon.waitForPackets(2);
    expect(finish!.header).toMatchObject({
      type: VIR_NET_STREAM,
      status: VIR_NET_OK,
      serial: call!.header.serial,
      proc: REMOTE_PROC_DOMAIN_SCREENSHOT,
    });
    expect(finish!.payload.length).toBe(0);
    let settled = false;
    void download.finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    daemon.confirmStream(call!);
    const { reply, data } = await download;
    expect(Buffer.from(reply).equals(Buffer.from(REPLY))).toBe(true);
    expect(data.toString()).toBe("abcdef");
  });

  it("rejects with the daemon's error when the call fails, and the connection stays usable", async () => {
    const download = connection.download(screenshot, new Uint8Array(), LIMITS).catch((e: unknown) => e);
    const [call] = await daemon.waitForPackets(1);
    daemon.reply(call!, libvirtError("no screens to take screenshot from"), VIR_NET_ERROR);
    expect(await download).toBeInstanceOf(LibvirtError);
    expect(String(await download)).toMatch(/no screens to take screenshot from/);
    const next = connection.call(hostname, new Uint8Array());
    const [, second] = await daemon.waitForPackets(2);
    daemon.reply(second!, encodeXdr(string(), "node01"));
    await expect(next).resolves.toBeDefined();
  });

  it("ends when the daemon finishes the stream without waiting for ours", async () => {
    const download = connection.download(screenshot, new Uint8Array(), LIMITS);
    const [call] = await daemon.waitForPackets(1);
    daemon.reply(call!, REPLY);
    daemon.stream(call!, Buffer.from("all"));
    daemon.confirmStream(call!);
    expect((await download).data.toString()).toBe("all");
    expect(sentAfter(1)).toEqual([]);
  });

  it("rejects with a stream error the daemon sends midway", async () => {
    const download = connection.download(screenshot, new Uint8Array(), LIMITS).catch((e: unknown) => e);
    const [call] = await daemon.waitForPackets(1);
    daemon.reply(call!, REPLY);
    daemon.stream(call!, Buffer.from("partial"));
    daemon.stream(call!, libvirtError("stream had I/O failure"), VIR_NET_ERROR);
    expect(String(await download)).toMatch(/stream had I\/O failure/);
    expect(connection.isOpen).toBe(true);
  });

  it("aborts a stream that brings more than maxBytes and swallows what was still in flight", async () => {
    const download = connection
      .download(screenshot, new Uint8Array(), { ...LIMITS, maxBytes: 4 })
      .catch((e: unknown) => e);
    const [call] = await daemon.waitForPackets(1);
    daemon.reply(call!, REPLY);
    daemon.stream(call!, Buffer.from("too much"));
    expect(String(await download)).toMatch(/more than 4 bytes/);
    const [, abort] = await daemon.waitForPackets(2);
    expect(abort!.header).toMatchObject({ type: VIR_NET_STREAM, status: VIR_NET_ERROR });
    daemon.stream(call!, Buffer.from("still coming"));
    daemon.confirmStream(call!);
    // The connection took both without taking them for a protocol error.
    const next = connection.call(hostname, new Uint8Array());
    const [, , third] = await daemon.waitForPackets(3);
    daemon.reply(third!, encodeXdr(string(), "node01"));
    await expect(next).resolves.toBeDefined();
    expect(sentAfter(3)).toEqual([]);
  });

  it("aborts once the reply is there when the deadline passed before it", async () => {
    const download = connection
      .download(screenshot, new Uint8Array(), { ...LIMITS, timeoutMs: 20 })
      .catch((e: unknown) => e);
    const [call] = await daemon.waitForPackets(1);
    expect(String(await download)).toMatch(/did not end within 20 ms/);
    expect(sentAfter(1)).toEqual([]);
    daemon.reply(call!, REPLY);
    const [, abort] = await daemon.waitForPackets(2);
    expect(abort!.header).toMatchObject({ type: VIR_NET_STREAM, status: VIR_NET_ERROR });
  });

  it("fails when the daemon hangs up mid-stream", async () => {
    const download = connection.download(screenshot, new Uint8Array(), LIMITS).catch((e: unknown) => e);
    const [call] = await daemon.waitForPackets(1);
    daemon.reply(call!, REPLY);
    daemon.stream(call!, Buffer.from("abc"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    daemon.hangUp();
    expect(await download).toBeInstanceOf(LibvirtConnectionClosedError);
  });

  it("closes on stream data for a call that has no stream", async () => {
    const call = connection.call(hostname, new Uint8Array()).catch((e: unknown) => e);
    const [packet] = await daemon.waitForPackets(1);
    daemon.stream(packet!, Buffer.from("x"));
    expect(String(await call)).toMatch(/stream data for unknown call/);
  });
});

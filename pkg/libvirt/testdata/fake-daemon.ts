// Test helper: a scripted stand-in for libvirtd on a unix socket. It splits what the client sends
// into packets (the same framing code, so tests look at headers and payloads) and lets the test
// answer, stay silent, send messages of its own, or break the stream.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PacketSplitter, encodePacket } from "../framing.js";
import type { Packet } from "../framing.js";
import type { VirNetMessageHeader } from "../generated/virnet-protocol.js";
import { VIR_NET_CONTINUE, VIR_NET_OK, VIR_NET_REPLY, VIR_NET_STREAM } from "../generated/virnet-protocol.js";

export class FakeDaemon {
  readonly socketPath: string;
  /** Every packet received, in order. */
  readonly received: Packet[] = [];
  private readonly dir: string;
  private server: Server | null = null;
  private client: Socket | null = null;
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly packetListeners = new Set<(packet: Packet) => void>();

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "kvts-fake-libvirtd-"));
    this.socketPath = join(this.dir, "libvirt-sock");
  }

  async start(): Promise<void> {
    const server = createServer((socket) => {
      this.client = socket;
      const splitter = new PacketSplitter();
      socket.on("data", (chunk: Buffer) => {
        for (const packet of splitter.push(chunk)) {
          this.received.push(packet);
          for (const listener of this.packetListeners) listener(packet);
        }
        this.waiters = this.waiters.filter((waiter) => {
          if (this.received.length < waiter.count) return true;
          waiter.resolve();
          return false;
        });
      });
      socket.on("error", () => {});
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.socketPath, resolve));
  }

  /** Resolves once `count` packets in total have arrived. */
  async waitForPackets(count: number): Promise<Packet[]> {
    if (this.received.length < count)
      await new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
    return this.received.slice(0, count);
  }

  /** Calls `listener` with each packet as it arrives (a daemon that answers on its own); returns the unsubscribe. */
  onPacket(listener: (packet: Packet) => void): () => void {
    this.packetListeners.add(listener);
    return () => this.packetListeners.delete(listener);
  }

  send(header: VirNetMessageHeader, payload: Uint8Array = new Uint8Array()): void {
    this.connected().write(encodePacket(header, payload));
  }

  /** Answers a received call with status OK (or the given status) and a payload. */
  reply(call: Packet, payload: Uint8Array = new Uint8Array(), status: number = VIR_NET_OK): void {
    this.send(
      { ...call.header, type: VIR_NET_REPLY, status: status as VirNetMessageHeader["status"] },
      payload,
    );
  }

  /** Sends a STREAM packet of a received call: data (CONTINUE) by default; an empty CONTINUE is end of file. */
  stream(call: Packet, payload: Uint8Array, status: number = VIR_NET_CONTINUE): void {
    this.send(
      { ...call.header, type: VIR_NET_STREAM, status: status as VirNetMessageHeader["status"] },
      payload,
    );
  }

  endStream(call: Packet): void {
    this.stream(call, new Uint8Array());
  }

  /** Confirms the client's finish (or abort) of a stream: an empty OK. */
  confirmStream(call: Packet): void {
    this.stream(call, new Uint8Array(), VIR_NET_OK);
  }

  writeRaw(bytes: Uint8Array): void {
    this.connected().write(bytes);
  }

  /** Closes the client's connection from the daemon side. */
  hangUp(): void {
    this.connected().destroy();
  }

  private connected(): Socket {
    if (!this.client) throw new Error("no client connected to the fake daemon");
    return this.client;
  }

  async stop(): Promise<void> {
    this.client?.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

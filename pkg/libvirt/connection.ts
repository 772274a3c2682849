// One RPC connection to a libvirt daemon over its unix socket: packet framing, calls matched to
// replies by serial (many may be in flight), daemon errors as LibvirtError, keepalive PINGs
// answered, other unprompted MESSAGEs (events) handed to listeners. It knows nothing about
// procedures' payloads: client.ts encodes and decodes those. Streams the daemon sends on after a call
// (read-stream.ts) are collected by the call's serial. Reconnecting is the caller's job.
import { createConnection } from "node:net";
import type { Socket } from "node:net";
import {
  LibvirtConnectionClosedError,
  LibvirtError,
  LibvirtNotSupportedError,
  LibvirtProtocolError,
} from "./errors.js";
import { PacketSplitter, encodePacket } from "./framing.js";
import type { Packet } from "./framing.js";
import { KeepAliveMonitor } from "./keepalive.js";
import type { KeepAliveOptions } from "./keepalive.js";
import { ReadStream } from "./read-stream.js";
import {
  KEEPALIVE_PROC_PING,
  KEEPALIVE_PROC_PONG,
  KEEPALIVE_PROGRAM,
  KEEPALIVE_PROTOCOL_VERSION,
} from "./generated/keepalive-protocol.js";
import {
  VIR_NET_CALL,
  VIR_NET_ERROR,
  VIR_NET_MESSAGE,
  VIR_NET_OK,
  VIR_NET_REPLY,
  VIR_NET_REPLY_WITH_FDS,
  VIR_NET_STREAM,
  VirNetMessageErrorCodec,
} from "./generated/virnet-protocol.js";
import type {
  VirNetMessageHeader,
  VirNetMessageStatus,
  VirNetMessageType,
} from "./generated/virnet-protocol.js";
import { decodeXdr } from "./xdr.js";

/** A MESSAGE the daemon sent on its own (an event), with its undecoded payload. */
export interface IncomingMessage {
  program: number;
  version: number;
  procedure: number;
  payload: Buffer;
}

/** Identifies the procedure of a call: which program and version, its number, and a name for errors. */
export interface CallTarget {
  program: number;
  version: number;
  procedure: number;
  name: string;
}

interface PendingCall {
  target: CallTarget;
  resolve(payload: Buffer): void;
  reject(error: Error): void;
}

export interface DownloadOptions {
  /** The most data the caller takes; more aborts the stream. */
  maxBytes: number;
  /** Reply and data must have arrived by then, or the stream is aborted. */
  timeoutMs: number;
}

export interface ConnectionOptions {
  /** Ping the daemon when it has been silent; closes the connection if it stops answering. */
  keepAlive?: KeepAliveOptions;
}

/** Calls a listener; its failure is its own and must not be taken for a protocol error. */
function notify(listener: (message: IncomingMessage) => void, message: IncomingMessage): void {
  try {
    listener(message);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

export class LibvirtConnection {
  private readonly pending = new Map<number, PendingCall>();
  private readonly streams = new Map<number, ReadStream>();
  private readonly listeners = new Set<(message: IncomingMessage) => void>();
  private readonly splitter = new PacketSplitter();
  private readonly keepAlive: KeepAliveMonitor | null;
  private nextSerial = 1;
  private closeError: Error | null = null;
  private shut = false;
  /** Settles once the socket is gone: null after close(), the cause otherwise. */
  readonly closed: Promise<Error | null>;
  /** Keepalive PINGs from the daemon this connection answered. */
  pingsAnswered = 0;

  /** Connects to the daemon socket, e.g. `<XDG_RUNTIME_DIR>/libvirt/libvirt-sock` for a session daemon. */
  static open(socketPath: string, options: ConnectionOptions = {}): Promise<LibvirtConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new LibvirtConnection(socket, options));
      });
    });
  }

  private constructor(
    private readonly socket: Socket,
    options: ConnectionOptions,
  ) {
    let markClosed: (error: Error | null) => void = () => {};
    this.closed = new Promise((resolve) => (markClosed = resolve));
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => this.shutDown(error));
    socket.on("close", () => {
      this.shutDown(new LibvirtConnectionClosedError("the libvirt daemon closed the connection"));
      markClosed(this.closeError);
    });
    this.keepAlive = options.keepAlive
      ? new KeepAliveMonitor(options.keepAlive, {
          ping: () =>
            this.send(KEEPALIVE_PROGRAM, KEEPALIVE_PROTOCOL_VERSION, KEEPALIVE_PROC_PING, VIR_NET_MESSAGE, 0),
          dead: (error) => this.socket.destroy(error),
        })
      : null;
  }

  /** False once the socket is closing or closed; calls then fail at once. */
  get isOpen(): boolean {
    return !this.shut;
  }

  /** Sends a CALL and resolves with the REPLY payload, or rejects with the daemon's LibvirtError. */
  call(target: CallTarget, payload: Uint8Array): Promise<Buffer> {
    return this.startCall(target, payload).reply;
  }

  /**
   * Sends a CALL whose procedure then streams data from the daemon (virDomainScreenshot and the like);
   * resolves with the reply payload and all the data once the daemon confirmed the stream's end.
   */
  async download(
    target: CallTarget,
    payload: Uint8Array,
    options: DownloadOptions,
  ): Promise<{ reply: Buffer; data: Buffer }> {
    const { serial, reply } = this.startCall(target, payload);
    const stream = new ReadStream(target.name, {
      maxBytes: options.maxBytes,
      sendControl: (status) => {
        if (!this.shut)
          this.send(
            target.program,
            target.version,
            target.procedure,
            VIR_NET_STREAM,
            serial,
            undefined,
            status,
          );
      },
    });
    this.streams.set(serial, stream);
    const timer = setTimeout(
      () => stream.abort(new Error(`${target.name}: the stream did not end within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const answered = reply.then(
      (answer) => {
        stream.replyArrived();
        return answer;
      },
      (error: unknown) => {
        // No stream was opened on the daemon: nothing more will come for this serial.
        stream.fail(error as Error);
        this.streams.delete(serial);
        throw error;
      },
    );
    try {
      // The first failure wins: an aborted stream need not wait for the reply.
      const [replied, data] = await Promise.all([answered, stream.data]);
      return { reply: replied, data };
    } finally {
      clearTimeout(timer);
    }
  }

  private startCall(target: CallTarget, payload: Uint8Array): { serial: number; reply: Promise<Buffer> } {
    const serial = this.nextSerial;
    if (this.shut) {
      const closed = new LibvirtConnectionClosedError(`${target.name}: the connection is closed`);
      return { serial, reply: Promise.reject(closed) };
    }
    this.nextSerial = (this.nextSerial + 1) >>> 0 || 1;
    const reply = new Promise<Buffer>((resolve, reject) => {
      this.pending.set(serial, { target, resolve, reject });
      try {
        this.send(target.program, target.version, target.procedure, VIR_NET_CALL, serial, payload);
      } catch (error) {
        this.pending.delete(serial);
        reject(error);
      }
    });
    return { serial, reply };
  }

  /** Registers a listener for unprompted messages (events); returns the function that removes it. */
  onMessage(listener: (message: IncomingMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes the socket; calls still waiting fail with LibvirtConnectionClosedError. */
  async close(): Promise<void> {
    if (!this.shut) {
      this.shutDown(null);
      this.socket.end();
    }
    await this.closed;
  }

  private send(
    program: number,
    version: number,
    procedure: number,
    type: VirNetMessageType,
    serial: number,
    payload?: Uint8Array,
    status: VirNetMessageStatus = VIR_NET_OK,
  ): void {
    const header: VirNetMessageHeader = {
      prog: program,
      vers: version,
      proc: procedure,
      type,
      serial,
      status,
    };
    this.socket.write(encodePacket(header, payload ?? new Uint8Array()));
  }

  private shutDown(cause: Error | null): void {
    if (this.shut) return;
    this.shut = true;
    this.closeError = cause;
    this.keepAlive?.stop();
    const reason = cause?.message ?? "the connection was closed";
    for (const call of this.pending.values()) {
      call.reject(new LibvirtConnectionClosedError(`${call.target.name}: ${reason}`, { cause }));
    }
    this.pending.clear();
    for (const stream of this.streams.values()) {
      stream.fail(new LibvirtConnectionClosedError(`stream: ${reason}`, { cause }));
    }
    this.streams.clear();
  }

  private receive(chunk: Buffer): void {
    this.keepAlive?.heard();
    let packets: Packet[];
    try {
      packets = this.splitter.push(chunk);
    } catch (error) {
      this.socket.destroy(error as Error);
      return;
    }
    for (const packet of packets) {
      try {
        this.dispatch(packet);
      } catch (error) {
        this.socket.destroy(error instanceof Error ? error : new LibvirtProtocolError(String(error)));
        return;
      }
    }
  }

  private dispatch({ header, payload }: Packet): void {
    if (header.type === VIR_NET_MESSAGE) {
      if (header.prog === KEEPALIVE_PROGRAM) return this.answerKeepAlive(header.proc);
      const message = { program: header.prog, version: header.vers, procedure: header.proc, payload };
      for (const listener of this.listeners) notify(listener, message);
      return;
    }
    if (header.type === VIR_NET_STREAM) return this.streamPacket(header, payload);
    if (header.type !== VIR_NET_REPLY && header.type !== VIR_NET_REPLY_WITH_FDS) {
      throw new LibvirtProtocolError(`unexpected message type ${header.type} (procedure ${header.proc})`);
    }
    const call = this.pending.get(header.serial);
    // An aborted stream may be answered with an error reply instead of a confirmation.
    if (!call && this.streams.has(header.serial) && header.type === VIR_NET_REPLY) {
      this.streams.get(header.serial)?.receive(header.status, payload);
      this.streams.delete(header.serial);
      return;
    }
    if (!call || call.target.program !== header.prog || call.target.procedure !== header.proc) {
      throw new LibvirtProtocolError(
        `reply to unknown call: serial ${header.serial}, procedure ${header.proc}`,
      );
    }
    this.pending.delete(header.serial);
    if (header.type === VIR_NET_REPLY_WITH_FDS) {
      call.reject(
        new LibvirtNotSupportedError(
          `${call.target.name}: replies carrying file descriptors are not supported yet`,
        ),
      );
    } else if (header.status === VIR_NET_OK) {
      call.resolve(payload);
    } else if (header.status === VIR_NET_ERROR) {
      call.reject(this.daemonError(call.target, payload));
    } else {
      call.reject(
        new LibvirtNotSupportedError(`${call.target.name}: streamed replies are not supported yet`),
      );
    }
  }

  private streamPacket(header: VirNetMessageHeader, payload: Buffer): void {
    const stream = this.streams.get(header.serial);
    if (!stream) {
      throw new LibvirtProtocolError(
        `stream data for unknown call: serial ${header.serial}, procedure ${header.proc}`,
      );
    }
    if (stream.receive(header.status, payload)) this.streams.delete(header.serial);
  }

  private daemonError(target: CallTarget, payload: Buffer): Error {
    try {
      return new LibvirtError(decodeXdr(VirNetMessageErrorCodec, payload), target.name);
    } catch (error) {
      return new LibvirtProtocolError(`${target.name}: undecodable error reply: ${(error as Error).message}`);
    }
  }

  private answerKeepAlive(procedure: number): void {
    if (procedure === KEEPALIVE_PROC_PING) {
      this.pingsAnswered++;
      this.send(KEEPALIVE_PROGRAM, KEEPALIVE_PROTOCOL_VERSION, KEEPALIVE_PROC_PONG, VIR_NET_MESSAGE, 0);
    }
    // A PONG answers our own PING; receive() already counted it as a sign of life.
  }
}

import { EventEmitter } from "node:events";
import { Duplex } from "node:stream";
import { FrameReader, RstStatus, SpdyProtocolError, encodeFrame } from "./spdy-frames.js";
import type { SpdyFrame } from "./spdy-frames.js";
import {
  HeaderBlockDeflater,
  HeaderBlockInflater,
  decodeHeaderBlock,
  encodeHeaderBlock,
  headerValue,
} from "./spdy-headers.js";
import type { SpdyHeaders } from "./spdy-headers.js";

// One SPDY/3.1 connection after an HTTP upgrade, behaving as moby/spdystream does towards its peer: the
// client opens streams (odd ids), the server can too (even ids); a stream is half-closed by a FIN on a
// data frame; RST_STREAM ends it at once; PINGs from the other side are echoed; SETTINGS and
// WINDOW_UPDATE are read and ignored (no flow control, see spdy-frames.ts). Back-pressure comes from the
// socket: a stream's write completes once the socket accepted the frame.

/** Largest data frame this side sends; spdystream itself sends one frame per Write call. */
const MAX_DATA_FRAME = 32 * 1024;

export class SpdyStream extends Duplex {
  /** The SYN_STREAM's headers (names lower case). */
  readonly headers: SpdyHeaders;
  private replied = false;
  private remoteClosed = false;
  private localClosed = false;
  /** Resolves once the peer answered a stream this side opened. */
  readonly replyReceived: Promise<SpdyHeaders>;
  private resolveReply!: (headers: SpdyHeaders) => void;
  private rejectReply!: (error: Error) => void;

  constructor(
    readonly id: number,
    headers: SpdyHeaders,
    private readonly connection: SpdyConnection,
  ) {
    super({ allowHalfOpen: true });
    this.headers = headers;
    this.replyReceived = new Promise((resolve, reject) => {
      this.resolveReply = resolve;
      this.rejectReply = reject;
    });
    this.replyReceived.catch(() => undefined);
  }

  /** Whether the peer finished its side (FIN or reset). */
  get remoteEnded(): boolean {
    return this.remoteClosed;
  }

  header(name: string): string | undefined {
    return headerValue(this.headers, name);
  }

  /** Accepts a stream the peer opened (SYN_REPLY with no headers, as apimachinery's server sends it). */
  reply(headers: SpdyHeaders = {}): void {
    if (this.replied) return;
    this.replied = true;
    this.connection.sendHeaders("syn_reply", this.id, headers, false);
  }

  /** Ends the stream at once in both directions. */
  reset(status: number = RstStatus.CANCEL): void {
    if (this.destroyed) return;
    this.connection.send({ type: "rst_stream", streamId: this.id, status });
    this.remoteClosed = this.localClosed = true;
    this.connection.forget(this.id);
    this.destroy();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let pending = Promise.resolve();
    for (let offset = 0; offset < chunk.length; offset += MAX_DATA_FRAME) {
      const data = chunk.subarray(offset, offset + MAX_DATA_FRAME);
      pending = this.connection.sendAsync({ type: "data", streamId: this.id, fin: false, data });
    }
    pending.then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localClosed = true;
    this.connection
      .sendAsync({ type: "data", streamId: this.id, fin: true, data: Buffer.alloc(0) })
      .then(() => {
        this.maybeForget();
        callback();
      }, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.connection.forget(this.id);
    this.rejectReply(error ?? new Error("stream closed"));
    callback(error);
  }

  /** @internal */
  receiveData(data: Buffer, fin: boolean): void {
    if (this.remoteClosed) return;
    if (data.length > 0) this.push(data);
    if (fin) this.receiveFin();
  }

  /** @internal */
  receiveFin(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.push(null);
    this.maybeForget();
  }

  /** @internal */
  receiveReply(headers: SpdyHeaders, fin: boolean): void {
    this.resolveReply(headers);
    if (fin) this.receiveFin();
  }

  /** @internal */
  receiveReset(status: number): void {
    this.remoteClosed = this.localClosed = true;
    this.destroy(
      status === RstStatus.CANCEL ? undefined : new Error(`stream reset by peer (status ${status})`),
    );
  }

  private maybeForget(): void {
    if (this.remoteClosed && this.localClosed) this.connection.forget(this.id);
  }
}

export interface SpdyConnectionEvents {
  stream: [SpdyStream];
  close: [];
  error: [Error];
}

export class SpdyConnection extends EventEmitter<SpdyConnectionEvents> {
  private readonly reader = new FrameReader();
  private readonly inflater = new HeaderBlockInflater();
  private readonly deflater = new HeaderBlockDeflater();
  private readonly streams = new Map<number, SpdyStream>();
  /** Frames are handled one at a time: header blocks share one zlib context and must go in order. */
  private queue: Promise<void> = Promise.resolve();
  private lastRemoteId = 0;
  private nextLocalId: number;
  private closed = false;

  constructor(
    private readonly socket: Duplex,
    readonly isServer: boolean,
    /** Bytes already read from the socket (what Node read past an upgrade request). */
    head?: Buffer,
  ) {
    super();
    this.nextLocalId = isServer ? 2 : 1;
    if (head && head.length > 0) this.receive(head);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    // Frames already read are handled first: a peer's last data and FINs precede its end.
    socket.on("close", () => this.afterQueued(() => this.shutdown()));
    // The peer is done sending: finish what is written, then close, as spdystream does on EOF.
    socket.on("end", () => this.afterQueued(() => this.close()));
    socket.on("error", () => this.shutdown());
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Opens a stream (the client side of the protocol, used by tests and by peers that push). */
  openStream(headers: SpdyHeaders, fin = false): SpdyStream {
    const id = this.nextLocalId;
    this.nextLocalId += 2;
    const stream = new SpdyStream(id, headers, this);
    this.streams.set(id, stream);
    const block = this.deflater.compress(encodeHeaderBlock(headers));
    this.send({
      type: "syn_stream",
      streamId: id,
      associatedTo: 0,
      priority: 0,
      fin,
      unidirectional: false,
      headerBlock: block,
    });
    return stream;
  }

  /** Sends GOAWAY and closes the socket once written. */
  close(): void {
    if (this.closed) return;
    this.send({ type: "goaway", lastGoodStreamId: this.lastRemoteId, status: 0 });
    // Written frames still go out: the socket is ended, not destroyed.
    this.socket.end();
    this.shutdown(false);
  }

  /** @internal */
  send(frame: SpdyFrame): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(encodeFrame(frame));
  }

  /** @internal Resolves when the socket took the frame (its buffer has room again). */
  sendAsync(frame: SpdyFrame): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.reject(new Error("connection closed"));
    return new Promise((resolve, reject) => {
      if (this.socket.write(encodeFrame(frame))) resolve();
      else {
        const onDrain = () => {
          this.socket.off("close", onClose);
          resolve();
        };
        const onClose = () => {
          this.socket.off("drain", onDrain);
          reject(new Error("connection closed"));
        };
        this.socket.once("drain", onDrain);
        this.socket.once("close", onClose);
      }
    });
  }

  /** @internal */
  sendHeaders(type: "syn_reply" | "headers", streamId: number, headers: SpdyHeaders, fin: boolean): void {
    this.send({ type, streamId, fin, headerBlock: this.deflater.compress(encodeHeaderBlock(headers)) });
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
  }

  private afterQueued(step: () => void): void {
    this.queue = this.queue.then(step, step);
  }

  private receive(chunk: Buffer): void {
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    for (const frame of frames) {
      this.queue = this.queue.then(() => this.handle(frame)).catch((error: Error) => this.fail(error));
    }
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.emit("error", error);
    this.socket.destroy();
    this.shutdown();
  }

  private async handle(frame: SpdyFrame): Promise<void> {
    if (this.closed) return;
    switch (frame.type) {
      case "syn_stream": {
        const headers = decodeHeaderBlock(await this.inflater.decompress(frame.headerBlock));
        const remoteParity = this.isServer ? 1 : 0;
        if (frame.streamId % 2 !== remoteParity || frame.streamId <= this.lastRemoteId) {
          this.send({ type: "rst_stream", streamId: frame.streamId, status: RstStatus.PROTOCOL_ERROR });
          return;
        }
        this.lastRemoteId = frame.streamId;
        const stream = new SpdyStream(frame.streamId, headers, this);
        this.streams.set(frame.streamId, stream);
        if (frame.fin) stream.receiveFin();
        this.emit("stream", stream);
        return;
      }
      case "syn_reply":
      case "headers": {
        const headers = decodeHeaderBlock(await this.inflater.decompress(frame.headerBlock));
        const stream = this.streams.get(frame.streamId);
        if (!stream) return;
        if (frame.type === "syn_reply") stream.receiveReply(headers, frame.fin);
        else if (frame.fin) stream.receiveFin();
        return;
      }
      case "data":
        this.streams.get(frame.streamId)?.receiveData(frame.data, frame.fin);
        return;
      case "rst_stream": {
        const stream = this.streams.get(frame.streamId);
        this.streams.delete(frame.streamId);
        stream?.receiveReset(frame.status);
        return;
      }
      case "ping":
        // Echo the peer's pings (its ids have the other parity than ours).
        if (frame.id % 2 === (this.isServer ? 1 : 0)) this.send(frame);
        return;
      case "goaway":
        this.socket.end();
        return;
      case "settings":
      case "window_update":
      case "unknown":
        return;
    }
  }

  private shutdown(destroySocket = true): void {
    if (this.closed) return;
    this.closed = true;
    this.inflater.close();
    // A stream the peer finished keeps what it received for its reader; the others end here.
    for (const stream of this.streams.values()) if (!stream.remoteEnded) stream.destroy();
    this.streams.clear();
    if (destroySocket && !this.socket.destroyed) this.socket.destroy();
    this.emit("close");
  }
}

export { SpdyProtocolError };

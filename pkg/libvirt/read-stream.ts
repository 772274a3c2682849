// The client side of a libvirt stream the daemon sends on (virStreamRecv, as virDomainScreenshot
// uses it), following libvirt's remote_daemon_stream.c and virnetserverprogram.c: after the call, the
// daemon sends STREAM packets with the call's serial, CONTINUE carrying data, then an empty CONTINUE
// for end of file; the client answers that with an empty OK (virStreamFinish) and the daemon confirms
// with an empty OK of its own. An ERROR packet from either side ends the stream (the client's is
// virStreamAbort). Stream packets may arrive before the call's reply, so the stream exists from the
// moment the call is sent.
import { LibvirtError, LibvirtProtocolError } from "./errors.js";
import {
  VIR_NET_CONTINUE,
  VIR_NET_ERROR,
  VIR_NET_OK,
  VirNetMessageErrorCodec,
} from "./generated/virnet-protocol.js";
import type { VirNetMessageStatus } from "./generated/virnet-protocol.js";
import { decodeXdr } from "./xdr.js";

export interface ReadStreamOptions {
  /** More data than this aborts the stream: the caller holds it all in memory. */
  maxBytes: number;
  /** Sends an empty STREAM packet of the call's serial with this status. */
  sendControl(status: VirNetMessageStatus): void;
}

type State = "receiving" | "finishing" | "aborting" | "done";

export class ReadStream {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private state: State = "receiving";
  /** The call's reply has come (the daemon created the stream): an abort can be sent. */
  private replied = false;
  private abortOnReply = false;
  private settle!: { resolve(data: Buffer): void; reject(error: Error): void };
  /** Everything the daemon sent, once it confirmed the finish. */
  readonly data: Promise<Buffer>;

  constructor(
    private readonly name: string,
    private readonly options: ReadStreamOptions,
  ) {
    this.data = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // The caller may stop listening early (its call failed); the outcome is then nobody's concern.
    this.data.catch(() => undefined);
  }

  get finished(): boolean {
    return this.state === "done";
  }

  /** The call's reply arrived with status OK. */
  replyArrived(): void {
    this.replied = true;
    if (this.abortOnReply) this.options.sendControl(VIR_NET_ERROR);
  }

  /**
   * Handles one STREAM packet of this stream; returns true once the stream is over and the connection
   * may forget its serial. Throws LibvirtProtocolError on a packet libvirt never sends.
   */
  receive(status: number, payload: Buffer): boolean {
    switch (this.state) {
      case "receiving":
        if (status === VIR_NET_CONTINUE && payload.length > 0) {
          this.append(payload);
          return false;
        }
        if (status === VIR_NET_CONTINUE) {
          // End of file: finish our side; the daemon's confirmation ends the stream.
          this.state = "finishing";
          this.options.sendControl(VIR_NET_OK);
          return false;
        }
        // A daemon that finished the stream on its own: nothing is left to confirm.
        if (status === VIR_NET_OK) return this.complete();
        return this.failWith(this.streamError(payload));
      case "finishing":
        if (status === VIR_NET_OK) return this.complete();
        if (status === VIR_NET_ERROR) return this.failWith(this.streamError(payload));
        throw new LibvirtProtocolError(`${this.name}: stream data after end of file`);
      case "aborting":
        // Data still in flight when we aborted; the daemon's confirmation (or error) ends it.
        if (status === VIR_NET_CONTINUE) return false;
        this.state = "done";
        return true;
      case "done":
        return true;
    }
  }

  /** Ends the stream with `error`: aborts it on the daemon when it may still be sending. */
  abort(error: Error): void {
    if (this.state !== "receiving" && this.state !== "finishing") return;
    this.state = "aborting";
    this.settle.reject(error);
    if (this.replied) this.options.sendControl(VIR_NET_ERROR);
    else this.abortOnReply = true;
  }

  /** The call failed or the connection closed: there is no stream on the daemon (any more). */
  fail(error: Error): void {
    if (this.state === "done") return;
    this.state = "done";
    this.settle.reject(error);
  }

  private append(payload: Buffer): void {
    this.bytes += payload.length;
    if (this.bytes > this.options.maxBytes) {
      this.abort(new LibvirtProtocolError(`${this.name}: more than ${this.options.maxBytes} bytes`));
      return;
    }
    this.chunks.push(payload);
  }

  private complete(): boolean {
    this.state = "done";
    this.settle.resolve(Buffer.concat(this.chunks, this.bytes));
    return true;
  }

  private failWith(error: Error): boolean {
    this.state = "done";
    this.settle.reject(error);
    return true;
  }

  private streamError(payload: Buffer): Error {
    try {
      return new LibvirtError(decodeXdr(VirNetMessageErrorCodec, payload), this.name);
    } catch (error) {
      return new LibvirtProtocolError(`${this.name}: undecodable stream error: ${(error as Error).message}`);
    }
  }
}

// One proxied connection: bytes copied both ways, each side's end of stream passed on as a half-close
// (QEMU and libvirt finish a stream by shutting down their write side and still read the answer), and
// both sockets destroyed together when either fails, so neither leg outlives the other.
import type { Socket } from "node:net";

export interface SpliceResult {
  /** Bytes read from `inbound` and written to `outbound`. */
  inboundToOutbound: number;
  /** Bytes read from `outbound` and written to `inbound`. */
  outboundToInbound: number;
  /** The first error on either leg; both legs were destroyed because of it. */
  error?: Error;
}

/**
 * Joins two connected sockets (created with allowHalfOpen, so an end arriving on one leg does not end
 * the other leg's writes early). Resolves once both sockets are closed.
 */
export function splice(inbound: Socket, outbound: Socket): Promise<SpliceResult> {
  const result: SpliceResult = { inboundToOutbound: 0, outboundToInbound: 0 };
  const fail = (error: Error) => {
    result.error ??= error;
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on("error", fail);
  outbound.on("error", fail);
  inbound.on("data", (chunk: Buffer) => (result.inboundToOutbound += chunk.length));
  outbound.on("data", (chunk: Buffer) => (result.outboundToInbound += chunk.length));
  // pipe() passes on backpressure and calls end() on the writer when the reader ends: a half-close.
  inbound.pipe(outbound);
  outbound.pipe(inbound);
  const closed = (socket: Socket) =>
    new Promise<void>((resolve) => {
      if (socket.closed) resolve();
      else socket.once("close", () => resolve());
    });
  // A leg closed before both of its directions ended cleanly (destroyed by stop) leaves the other
  // nothing to copy to; after a clean close the other leg may still be flushing, so it is left alone.
  const abandonOther = (socket: Socket, other: Socket) => () => {
    if (!(socket.readableEnded && socket.writableFinished)) other.destroy();
  };
  inbound.once("close", abandonOther(inbound, outbound));
  outbound.once("close", abandonOther(outbound, inbound));
  return Promise.all([closed(inbound), closed(outbound)]).then(() => result);
}

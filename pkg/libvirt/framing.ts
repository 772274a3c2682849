// libvirt RPC packets on a byte stream: a 4-byte length (counting itself), the 24-byte
// virNetMessageHeader, then the XDR payload. See virnetprotocol.x.
import { LibvirtProtocolError } from "./errors.js";
import {
  VIR_NET_MESSAGE_HEADER_MAX,
  VIR_NET_MESSAGE_LEN_MAX,
  VIR_NET_MESSAGE_MAX,
  VirNetMessageHeaderCodec,
} from "./generated/virnet-protocol.js";
import type { VirNetMessageHeader } from "./generated/virnet-protocol.js";
import { XdrReader, XdrWriter } from "./xdr.js";

export interface Packet {
  header: VirNetMessageHeader;
  payload: Buffer;
}

export function encodePacket(header: VirNetMessageHeader, payload: Uint8Array): Buffer {
  const length = VIR_NET_MESSAGE_LEN_MAX + VIR_NET_MESSAGE_HEADER_MAX + payload.length;
  if (length - VIR_NET_MESSAGE_LEN_MAX > VIR_NET_MESSAGE_MAX) {
    throw new LibvirtProtocolError(
      `message of ${length} bytes exceeds libvirt's limit of ${VIR_NET_MESSAGE_MAX}`,
    );
  }
  const writer = new XdrWriter();
  writer.writeUint32(length);
  VirNetMessageHeaderCodec.encode(writer, header);
  // The payload goes as is: XDR for calls and messages, raw bytes for stream data.
  return Buffer.concat([writer.toBuffer(), payload]);
}

/** Splits a byte stream into packets; throws LibvirtProtocolError on a length no daemon would send. */
export class PacketSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Total length of the packet being received, once its length word has arrived. */
  private expected = 0;

  push(chunk: Buffer): Packet[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    // Joining chunks costs a copy: wait until the packet is complete (large XML arrives in pieces).
    if (this.expected > this.pendingBytes) return [];
    let buffer = this.pending.length === 1 ? chunk : Buffer.concat(this.pending, this.pendingBytes);
    const packets: Packet[] = [];
    this.expected = 0;
    while (buffer.length >= VIR_NET_MESSAGE_LEN_MAX) {
      const length = checkedLength(buffer.readUInt32BE(0));
      if (buffer.length < length) {
        this.expected = length;
        break;
      }
      packets.push(decodePacketBody(buffer.subarray(VIR_NET_MESSAGE_LEN_MAX, length)));
      buffer = buffer.subarray(length);
    }
    this.pending = buffer.length === 0 ? [] : [buffer];
    this.pendingBytes = buffer.length;
    return packets;
  }
}

function checkedLength(length: number): number {
  const body = length - VIR_NET_MESSAGE_LEN_MAX;
  if (body < VIR_NET_MESSAGE_HEADER_MAX || body > VIR_NET_MESSAGE_MAX) {
    throw new LibvirtProtocolError(
      `packet length ${length} is outside [${VIR_NET_MESSAGE_LEN_MAX + VIR_NET_MESSAGE_HEADER_MAX}, ` +
        `${VIR_NET_MESSAGE_LEN_MAX + VIR_NET_MESSAGE_MAX}]`,
    );
  }
  return length;
}

function decodePacketBody(body: Buffer): Packet {
  const reader = new XdrReader(body.subarray(0, VIR_NET_MESSAGE_HEADER_MAX));
  let header: VirNetMessageHeader;
  try {
    header = VirNetMessageHeaderCodec.decode(reader);
  } catch (error) {
    throw new LibvirtProtocolError(`bad message header: ${(error as Error).message}`);
  }
  return { header, payload: Buffer.from(body.subarray(VIR_NET_MESSAGE_HEADER_MAX)) };
}

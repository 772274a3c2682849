import { ipv4Bytes } from "../netmachinery/ip.js";

// DHCPv4 wire format (RFC 2131 / RFC 2132): the fixed BOOTP header, the magic cookie and the
// option list. Decoding never throws: a malformed datagram is `undefined`, as anything on the
// bridge may send to port 67.

export const BOOT_REQUEST = 1;
export const BOOT_REPLY = 2;

export const MessageType = {
  Discover: 1,
  Offer: 2,
  Request: 3,
  Decline: 4,
  ACK: 5,
  NAK: 6,
  Release: 7,
  Inform: 8,
} as const;

export const OptionCode = {
  Pad: 0,
  SubnetMask: 1,
  Router: 3,
  DomainNameServer: 6,
  HostName: 12,
  DomainName: 15,
  InterfaceMTU: 26,
  NetworkTimeProtocolServers: 42,
  IPAddressLeaseTime: 51,
  DHCPMessageType: 53,
  ServerIdentifier: 54,
  TFTPServerName: 66,
  BootFileName: 67,
  DomainSearch: 119,
  ClasslessRouteFormat: 121,
  End: 255,
} as const;

const HEADER_LENGTH = 236;
const OPTIONS_OFFSET = 240;
const MAGIC_COOKIE = [99, 130, 83, 99];
const MAX_HARDWARE_ADDRESS_LENGTH = 16;
/** BOOTP's 300-byte minimum UDP payload, which some old clients insist on (272 + 28 bytes headers). */
const MIN_PACKET_SIZE = 272;
const MAX_OPTION_LENGTH = 255;

export interface DhcpPacket {
  op: number;
  htype: number;
  hops: number;
  xid: number;
  secs: number;
  flags: number;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** The client hardware address, `hlen` bytes long. */
  chaddr: Buffer;
  options: Map<number, Buffer>;
}

export function isBroadcastFlagSet(packet: DhcpPacket): boolean {
  return (packet.flags & 0x8000) !== 0;
}

export function messageTypeOf(packet: DhcpPacket): number | undefined {
  const value = packet.options.get(OptionCode.DHCPMessageType);
  return value?.length === 1 ? value[0] : undefined;
}

/** Parses a datagram; undefined when it cannot be a DHCP message. */
export function decodeDhcpPacket(datagram: Buffer): DhcpPacket | undefined {
  if (datagram.length < OPTIONS_OFFSET) return undefined;
  const hlen = datagram.readUInt8(2);
  if (hlen > MAX_HARDWARE_ADDRESS_LENGTH) return undefined;
  if (!MAGIC_COOKIE.every((byte, i) => datagram[HEADER_LENGTH + i] === byte)) return undefined;
  return {
    op: datagram.readUInt8(0),
    htype: datagram.readUInt8(1),
    hops: datagram.readUInt8(3),
    xid: datagram.readUInt32BE(4),
    secs: datagram.readUInt16BE(8),
    flags: datagram.readUInt16BE(10),
    ciaddr: readAddress(datagram, 12),
    yiaddr: readAddress(datagram, 16),
    siaddr: readAddress(datagram, 20),
    giaddr: readAddress(datagram, 24),
    chaddr: Buffer.from(datagram.subarray(28, 28 + hlen)),
    options: decodeOptions(datagram.subarray(OPTIONS_OFFSET)),
  };
}

/** Options until End; a truncated option ends the list. A repeated code is concatenated (RFC 3396). */
export function decodeOptions(bytes: Buffer): Map<number, Buffer> {
  const options = new Map<number, Buffer>();
  let offset = 0;
  while (offset < bytes.length) {
    const code = bytes.readUInt8(offset);
    if (code === OptionCode.End) break;
    if (code === OptionCode.Pad) {
      offset += 1;
      continue;
    }
    if (offset + 2 > bytes.length) break;
    const length = bytes.readUInt8(offset + 1);
    if (offset + 2 + length > bytes.length) break;
    const value = bytes.subarray(offset + 2, offset + 2 + length);
    const previous = options.get(code);
    options.set(code, previous ? Buffer.concat([previous, value]) : Buffer.from(value));
    offset += 2 + length;
  }
  return options;
}

export interface EncodableDhcpPacket extends Omit<DhcpPacket, "options"> {
  /** Written in this order; a value over 255 bytes is split into consecutive options (RFC 3396). */
  options: ReadonlyArray<readonly [number, Buffer]>;
}

export function encodeDhcpPacket(packet: EncodableDhcpPacket): Buffer {
  const header = Buffer.alloc(OPTIONS_OFFSET);
  header.writeUInt8(packet.op, 0);
  header.writeUInt8(packet.htype, 1);
  header.writeUInt8(packet.chaddr.length, 2);
  header.writeUInt8(packet.hops, 3);
  header.writeUInt32BE(packet.xid >>> 0, 4);
  header.writeUInt16BE(packet.secs, 8);
  header.writeUInt16BE(packet.flags, 10);
  writeAddress(header, 12, packet.ciaddr);
  writeAddress(header, 16, packet.yiaddr);
  writeAddress(header, 20, packet.siaddr);
  writeAddress(header, 24, packet.giaddr);
  packet.chaddr.copy(header, 28, 0, MAX_HARDWARE_ADDRESS_LENGTH);
  Buffer.from(MAGIC_COOKIE).copy(header, HEADER_LENGTH);
  const encoded = Buffer.concat([
    header,
    ...packet.options.map(([code, value]) => encodeOption(code, value)),
    END,
  ]);
  if (encoded.length >= MIN_PACKET_SIZE) return encoded;
  return Buffer.concat([encoded, Buffer.alloc(MIN_PACKET_SIZE - encoded.length)]);
}

const END = Buffer.from([OptionCode.End]);

function encodeOption(code: number, value: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  do {
    const chunk = value.subarray(offset, offset + MAX_OPTION_LENGTH);
    parts.push(Buffer.from([code, chunk.length]), chunk);
    offset += MAX_OPTION_LENGTH;
  } while (offset < value.length);
  return Buffer.concat(parts);
}

function readAddress(bytes: Buffer, offset: number): string {
  return Array.from(bytes.subarray(offset, offset + 4)).join(".");
}

function writeAddress(bytes: Buffer, offset: number, address: string): void {
  Buffer.from(ipv4Bytes(address)).copy(bytes, offset);
}

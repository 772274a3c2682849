import { ipv4Bytes } from "../netmachinery/ip.js";
import type { DhcpPacket } from "./packet.js";
import { BOOT_REPLY, MessageType, OptionCode, encodeDhcpPacket, messageTypeOf } from "./packet.js";

// Turns one client message into the server's answer (upstream dhcp/server.DHCPHandler): OFFER for
// DISCOVER, ACK for REQUEST, always the same address, and silence for anything else or any other MAC.

/** Upstream's "infinite" lease: 999 days. */
export const INFINITE_LEASE_SECONDS = 999 * 24 * 60 * 60;

export interface SingleClientLease {
  clientMAC: Buffer;
  clientIP: string;
  serverIP: string;
  leaseSeconds: number;
  /** Every option is sent in every reply, whether the client asked for it or not, as upstream does. */
  options: ReadonlyMap<number, Buffer>;
}

export function serveDhcp(request: DhcpPacket, lease: SingleClientLease): Buffer | undefined {
  if (!request.chaddr.equals(lease.clientMAC)) return undefined;
  switch (messageTypeOf(request)) {
    case MessageType.Discover:
      return replyPacket(request, MessageType.Offer, lease);
    case MessageType.Request:
      return replyPacket(request, MessageType.ACK, lease);
    default:
      return undefined;
  }
}

function replyPacket(request: DhcpPacket, type: number, lease: SingleClientLease): Buffer {
  const leaseTime = Buffer.alloc(4);
  leaseTime.writeUInt32BE(lease.leaseSeconds);
  const configured = [...lease.options.entries()].sort(([a], [b]) => a - b);
  return encodeDhcpPacket({
    op: BOOT_REPLY,
    htype: 1,
    hops: 0,
    xid: request.xid,
    secs: 0,
    flags: request.flags,
    ciaddr: "0.0.0.0",
    yiaddr: lease.clientIP,
    siaddr: "0.0.0.0",
    giaddr: request.giaddr,
    chaddr: request.chaddr,
    options: [
      [OptionCode.DHCPMessageType, Buffer.from([type])],
      [OptionCode.ServerIdentifier, Buffer.from(ipv4Bytes(lease.serverIP))],
      [OptionCode.IPAddressLeaseTime, leaseTime],
      ...configured,
    ],
  });
}

import { describe, expect, it } from "vitest";
import { INFINITE_LEASE_SECONDS, serveDhcp } from "./handler.js";
import type { SingleClientLease } from "./handler.js";
import { decodeDhcpPacket } from "./packet.js";

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

function request(messageType: number, mac = "020000aabb01"): Buffer {
  return Buffer.concat([
    hex("01 01 06 00 39 03 f3 26 00 00 80 00"),
    Buffer.alloc(16),
    hex(mac),
    Buffer.alloc(10 + 192),
    hex("63 82 53 63 35 01"),
    Buffer.from([messageType]),
    hex("ff"),
  ]);
}

const lease: SingleClientLease = {
  clientMAC: hex("02 00 00 aa bb 01"),
  clientIP: "10.0.2.2",
  serverIP: "10.0.2.1",
  leaseSeconds: INFINITE_LEASE_SECONDS,
  // Deliberately out of order: replies list configured options by code.
  options: new Map([
    [3, hex("0a 00 02 01")],
    [1, hex("ff ff ff 00")],
  ]),
};

describe("single-client DHCP handler", () => {
  it("answers DISCOVER with this exact OFFER", () => {
    const reply = serveDhcp(decodeDhcpPacket(request(1))!, lease)!;
    expect(reply.subarray(0, 12)).toEqual(hex("02 01 06 00 39 03 f3 26 00 00 80 00")); // op, xid, flags echoed
    expect(reply.subarray(12, 28)).toEqual(hex("00000000 0a000202 00000000 00000000")); // yiaddr = the VM's IP
    expect(reply.subarray(28, 44)).toEqual(Buffer.concat([hex("02 00 00 aa bb 01"), Buffer.alloc(10)]));
    expect(reply.subarray(236, 268)).toEqual(
      hex(
        "63 82 53 63" + // magic cookie
          "35 01 02" + // OFFER
          "36 04 0a 00 02 01" + // server identifier
          "33 04 05 25 0a 80" + // lease: 999 days
          "01 04 ff ff ff 00" + // subnet mask
          "03 04 0a 00 02 01" + // router
          "ff",
      ),
    );
    expect(reply.length).toBe(272);
    expect(reply.subarray(268).every((byte) => byte === 0)).toBe(true);
  });

  it("answers REQUEST with an ACK for the same address", () => {
    const reply = decodeDhcpPacket(serveDhcp(decodeDhcpPacket(request(3))!, lease)!)!;
    expect(reply.options.get(53)).toEqual(hex("05"));
    expect(reply.yiaddr).toBe("10.0.2.2");
  });

  it.each([
    ["another MAC", request(1, "020000aabb02")],
    ["a DECLINE", request(4)],
    ["a RELEASE", request(7)],
    ["an INFORM", request(8)],
  ])("ignores %s", (_, datagram) => {
    expect(serveDhcp(decodeDhcpPacket(datagram)!, lease)).toBeUndefined();
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BOOT_REQUEST,
  decodeDhcpPacket,
  decodeOptions,
  encodeDhcpPacket,
  isBroadcastFlagSet,
  messageTypeOf,
} from "./packet.js";

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

// A DHCPDISCOVER as busybox udhcpc sends it (broadcast flag set), written out field by field.
const DISCOVER = Buffer.concat([
  hex("01 01 06 00"), // op BOOTREQUEST, htype ethernet, hlen 6, hops
  hex("39 03 f3 26"), // xid
  hex("00 05 80 00"), // secs 5, flags: broadcast
  hex("00000000 00000000 00000000 00000000"), // ciaddr yiaddr siaddr giaddr
  hex("02 00 00 aa bb 01"),
  Buffer.alloc(10), // chaddr padding
  Buffer.alloc(64 + 128), // sname, file
  hex("63 82 53 63"), // magic cookie
  hex("35 01 01"), // message type DISCOVER
  hex("00"), // a pad
  hex("37 03 01 03 06"), // parameter request list
  hex("0c 04 74 65 73 74"), // host name "test"
  hex("ff"),
]);

describe("DHCP packet decoding", () => {
  it("decodes the fixed fields and options of a DISCOVER", () => {
    const packet = decodeDhcpPacket(DISCOVER)!;
    expect(packet).toMatchObject({ op: BOOT_REQUEST, htype: 1, xid: 0x3903f326, secs: 5, ciaddr: "0.0.0.0" });
    expect(packet.chaddr).toEqual(hex("02 00 00 aa bb 01"));
    expect(isBroadcastFlagSet(packet)).toBe(true);
    expect(messageTypeOf(packet)).toBe(1);
    expect(packet.options).toEqual(
      new Map([
        [53, hex("01")],
        [55, hex("01 03 06")],
        [12, Buffer.from("test")],
      ]),
    );
  });

  it.each([
    ["shorter than the fixed part", DISCOVER.subarray(0, 239)],
    ["a hardware address over 16 bytes", Buffer.concat([hex("01 01 11"), DISCOVER.subarray(3)])],
    [
      "no magic cookie",
      Buffer.concat([DISCOVER.subarray(0, 236), hex("00 00 00 00"), DISCOVER.subarray(240)]),
    ],
  ])("refuses a datagram with %s", (_, datagram) => {
    expect(decodeDhcpPacket(datagram)).toBeUndefined();
  });

  it("stops at a truncated option and joins a repeated one (RFC 3396)", () => {
    expect(decodeOptions(hex("0c 02 61 62 0c 01 63 06 04 0a 00"))).toEqual(
      new Map([[12, Buffer.from("abc")]]),
    );
  });

  it("never throws, whatever arrives on port 67", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (bytes) => {
        decodeDhcpPacket(Buffer.from(bytes));
      }),
    );
    // Datagrams that pass the header checks and carry random option bytes.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.integer({ min: 0, max: 16 }), (options, hlen) => {
        const datagram = Buffer.concat([DISCOVER.subarray(0, 240), Buffer.from(options)]);
        datagram[2] = hlen;
        const packet = decodeDhcpPacket(datagram);
        expect(packet?.chaddr.length).toBe(hlen);
      }),
    );
  });
});

describe("DHCP packet encoding", () => {
  it("round-trips through the decoder and pads to BOOTP's minimum", () => {
    fc.assert(
      fc.property(
        fc.record({
          xid: fc.integer({ min: 0, max: 0xffffffff }),
          flags: fc.integer({ min: 0, max: 0xffff }),
          yiaddr: fc.ipV4(),
          chaddr: fc.uint8Array({ minLength: 6, maxLength: 16 }),
          options: fc.array(
            fc.tuple(fc.integer({ min: 1, max: 254 }), fc.uint8Array({ minLength: 1, maxLength: 600 })),
            {
              maxLength: 4,
            },
          ),
        }),
        (fields) => {
          const options = [
            ...new Map(fields.options.map(([code, value]) => [code, Buffer.from(value)] as const)),
          ];
          const encoded = encodeDhcpPacket({
            op: 2,
            htype: 1,
            hops: 0,
            secs: 0,
            ciaddr: "0.0.0.0",
            siaddr: "0.0.0.0",
            giaddr: "0.0.0.0",
            ...fields,
            chaddr: Buffer.from(fields.chaddr),
            options,
          });
          expect(encoded.length).toBeGreaterThanOrEqual(272);
          const decoded = decodeDhcpPacket(encoded)!;
          expect(decoded).toMatchObject({ xid: fields.xid, flags: fields.flags, yiaddr: fields.yiaddr });
          expect(decoded.chaddr).toEqual(Buffer.from(fields.chaddr));
          expect(decoded.options).toEqual(new Map(options));
        },
      ),
    );
  });

  it("splits an option longer than 255 bytes into consecutive ones", () => {
    const long = Buffer.alloc(300, 7);
    const encoded = encodeDhcpPacket({
      op: 2,
      htype: 1,
      hops: 0,
      xid: 1,
      secs: 0,
      flags: 0,
      ciaddr: "0.0.0.0",
      yiaddr: "0.0.0.0",
      siaddr: "0.0.0.0",
      giaddr: "0.0.0.0",
      chaddr: hex("02 00 00 00 00 01"),
      options: [[121, long]],
    });
    expect(encoded.subarray(240, 242)).toEqual(hex("79 ff"));
    expect(encoded.subarray(240 + 2 + 255, 240 + 2 + 255 + 2)).toEqual(hex("79 2d"));
  });
});

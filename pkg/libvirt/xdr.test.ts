import { describe, expect, it } from "vitest";
import {
  RemoteErrorCodec,
  RemoteNonnullDomainCodec,
  RemoteTypedParamValueCodec,
} from "./generated/remote-protocol.js";
import { VIR_TYPED_PARAM_STRING, VIR_TYPED_PARAM_ULLONG } from "./generated/libvirt-api.js";
import * as xdr from "./xdr.js";
import type { XdrCodec } from "./xdr.js";
import { XdrReader, XdrWriter } from "./xdr-stream.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const bytes = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

interface Point {
  x: number;
  label: string;
}
const point = xdr.struct<Point>("point", { x: xdr.int, label: xdr.string(8) });

type Shape = { kind: 0 } | { kind: 1; radius: number } | { kind: 2 | 3; name: string };
const shape = xdr.union<Shape>(
  "shape",
  { field: "kind", codec: xdr.int },
  [
    { cases: [0], field: null, codec: null },
    { cases: [1], field: "radius", codec: xdr.uint },
    { cases: [2, 3], field: "name", codec: xdr.string() },
  ],
  null,
);

// Byte layouts as RFC 4506 section 4 defines them: big-endian 4-byte units, variable-length data
// preceded by its length and padded with zeros to a multiple of four.
const vectors: [string, XdrCodec<unknown>, unknown, string][] = [
  ["int -1", xdr.int, -1, "ffffffff"],
  ["int 0x12345678", xdr.int, 0x12345678, "12345678"],
  ["unsigned int max", xdr.uint, 0xffffffff, "ffffffff"],
  ["hyper -2", xdr.hyper, -2n, "ffffffff fffffffe"],
  ["unsigned hyper 2^40+1", xdr.uhyper, (1n << 40n) + 1n, "00000100 00000001"],
  ["bool true", xdr.bool, true, "00000001"],
  ["bool false", xdr.bool, false, "00000000"],
  ["float 1.0", xdr.float, 1, "3f800000"],
  ["double -2.5", xdr.double, -2.5, "c0040000 00000000"],
  ["string with padding", xdr.string(), "abc", "00000003 61626300"],
  ["empty string", xdr.string(), "", "00000000"],
  ["string of exactly four bytes has no padding", xdr.string(), "abcd", "00000004 61626364"],
  ["UTF-8 string counts bytes", xdr.string(), "é", "00000002 c3a90000"],
  ["fixed opaque[3]", xdr.opaqueFixed(3), bytes("010203"), "01020300"],
  ["variable opaque", xdr.opaque(), bytes("0102030405"), "00000005 01020304 05000000"],
  ["fixed array int[2]", xdr.fixedArray(xdr.int, 2), [1, -1], "00000001 ffffffff"],
  ["variable array", xdr.array(xdr.uint), [7, 8], "00000002 00000007 00000008"],
  ["optional absent", xdr.optional(xdr.int), null, "00000000"],
  ["optional present", xdr.optional(xdr.int), 5, "00000001 00000005"],
  ["struct in field order", point, { x: 1, label: "hi" }, "00000001 00000002 68690000"],
  ["union void arm", shape, { kind: 0 }, "00000000"],
  ["union arm", shape, { kind: 1, radius: 9 }, "00000001 00000009"],
  ["union arm with two cases", shape, { kind: 3, name: "a" }, "00000003 00000001 61000000"],
];

describe("XDR codecs", () => {
  it.each(vectors)("%s encodes as RFC 4506 says and decodes back", (_name, codec, value, expected) => {
    const encoded = xdr.encodeXdr(codec, value);
    expect(hex(encoded)).toBe(expected.replace(/\s+/g, ""));
    expect(xdr.decodeXdr(codec, encoded)).toEqual(value);
  });

  it("round-trips generated libvirt types", () => {
    const domain = { name: "vm1", uuid: new Uint8Array(16).fill(7), id: 3 };
    expect(xdr.decodeXdr(RemoteNonnullDomainCodec, xdr.encodeXdr(RemoteNonnullDomainCodec, domain))).toEqual({
      ...domain,
      uuid: Buffer.from(domain.uuid),
    });
    for (const value of [
      { type: VIR_TYPED_PARAM_ULLONG, ul: (1n << 63n) + 5n },
      { type: VIR_TYPED_PARAM_STRING, s: "memory" },
    ] as const) {
      expect(
        xdr.decodeXdr(RemoteTypedParamValueCodec, xdr.encodeXdr(RemoteTypedParamValueCodec, value)),
      ).toEqual(value);
    }
  });

  it("lays out remote_error like libvirtd (optional strings and domains)", () => {
    const error = {
      code: 42,
      domain: 10,
      message: "Domain not found",
      level: 2,
      dom: null,
      str1: null,
      str2: "x",
      str3: null,
      int1: -1,
      int2: 0,
      net: null,
    };
    const encoded = xdr.encodeXdr(RemoteErrorCodec, error);
    expect(hex(encoded.subarray(0, 32))).toBe(
      "0000002a" + "0000000a" + "00000001" + "00000010" + hex(Buffer.from("Domain not found")),
    );
    expect(xdr.decodeXdr(RemoteErrorCodec, encoded)).toEqual(error);
  });
});

describe("XDR encode errors name the field and the rule", () => {
  const cases: [string, XdrCodec<unknown>, unknown, RegExp][] = [
    [
      "int out of range",
      xdr.int,
      2 ** 31,
      /expected int in \[-2147483648, 2147483647\], got number 2147483648/,
    ],
    ["fraction", xdr.uint, 1.5, /expected unsigned int/],
    ["hyper as number", xdr.hyper, 1, /expected hyper as a bigint/],
    ["unsigned hyper negative", xdr.uhyper, -1n, /expected unsigned hyper/],
    ["string over its bound in bytes", xdr.string(2), "éa", /string<2> is 3 bytes long, its bound is 2/],
    ["wrong fixed opaque size", xdr.opaqueFixed(16), new Uint8Array(15), /needs exactly 16 bytes, got 15/],
    ["array over its bound", xdr.array(xdr.int, 1), [1, 2], /int<1> is 2 elements long, its bound is 1/],
    ["nested field path", point, { x: 1, label: 7 }, /^label: expected string<8>, got number 7$/],
    [
      "array element path",
      xdr.array(point),
      [
        { x: 1, label: "a" },
        { x: "2", label: "b" },
      ],
      /^\[1\]\.x: expected int/,
    ],
    ["union without the arm", shape, { kind: 9 }, /union shape has no arm for kind = 9/],
    ["enum non-member", xdr.enumeration("colour", [0, 1]), 5, /5 is not a value of enum colour/],
    ["struct given null", point, null, /expected struct point \(an object\), got null/],
  ];
  it.each(cases)("%s", (_name, codec, value, message) => {
    expect(() => xdr.encodeXdr(codec, value)).toThrow(xdr.XdrEncodeError);
    expect(() => xdr.encodeXdr(codec, value)).toThrow(message);
  });
});

describe("XDR decode errors", () => {
  const cases: [string, XdrCodec<unknown>, string, RegExp][] = [
    ["truncated int", xdr.int, "0000", /needs 4 more bytes, only 2 left/],
    [
      "string longer than its bound",
      xdr.string(2),
      "00000003 61626300",
      /string<2> length 3 exceeds its bound 2/,
    ],
    ["bool 2", xdr.bool, "00000002", /bool must be 0 or 1, got 2/],
    ["optional flag 2", xdr.optional(xdr.int), "00000002", /presence flag must be 0 or 1, got 2/],
    [
      "enum value outside the enum",
      xdr.enumeration("colour", [0, 1]),
      "00000007",
      /7 is not a value of enum colour/,
    ],
    ["union arm missing", shape, "00000005", /union shape has no arm for kind = 5/],
    ["trailing bytes", xdr.int, "00000001 00000000", /4 unexpected trailing bytes/],
    [
      "huge array length",
      xdr.array(xdr.hyper),
      "7fffffff 00000000",
      /claims 2147483647 elements, only 4 bytes left/,
    ],
    [
      "field path",
      point,
      "00000001 00000009 6869",
      /^label: string<8> length 9 exceeds its bound 8 \(at byte 4\)$/,
    ],
  ];
  it.each(cases)("%s", (_name, codec, input, message) => {
    expect(() => xdr.decodeXdr(codec, bytes(input))).toThrow(xdr.XdrDecodeError);
    expect(() => xdr.decodeXdr(codec, bytes(input))).toThrow(message);
  });
});

describe("lazy codecs", () => {
  interface Node {
    value: number;
    next: Node | null;
  }
  const node: XdrCodec<Node> = xdr.struct<Node>("node", {
    value: xdr.int,
    next: xdr.optional(xdr.lazy("node", () => node)),
  });

  it("encode recursive types such as linked lists", () => {
    const list = { value: 1, next: { value: 2, next: null } };
    const encoded = xdr.encodeXdr(node, list);
    expect(hex(encoded)).toBe("00000001" + "00000001" + "00000002" + "00000000");
    expect(xdr.decodeXdr(node, encoded)).toEqual(list);
  });
});

describe("enumName", () => {
  it("finds the member name of a value", () => {
    const members = { RED: 0, GREEN: 1 } as const;
    expect(xdr.enumName(members, 1)).toBe("GREEN");
    expect(xdr.enumName(members, 2)).toBeUndefined();
  });
});

describe("XdrWriter growth", () => {
  it("keeps every value written while its buffer grows", () => {
    const writer = new XdrWriter();
    const values = Array.from({ length: 300 }, (_, i) => i * 7919 - 1_000_000);
    for (const [i, v] of values.entries()) {
      writer.writeInt32(v);
      writer.writeUint64(BigInt(i) << 33n);
    }
    const reader = new XdrReader(writer.toBuffer());
    for (const [i, v] of values.entries()) {
      expect(reader.readInt32()).toBe(v);
      expect(reader.readUint64()).toBe(BigInt(i) << 33n);
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FrameReader, SpdyProtocolError, encodeFrame } from "./spdy-frames.js";
import type { SpdyFrame } from "./spdy-frames.js";

const streamId = fc.integer({ min: 1, max: 0x7fffffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const bytes = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));

const frame: fc.Arbitrary<SpdyFrame> = fc.oneof(
  fc.record({ type: fc.constant("data" as const), streamId, fin: fc.boolean(), data: bytes }),
  fc.record({
    type: fc.constant("syn_stream" as const),
    streamId,
    associatedTo: fc.integer({ min: 0, max: 0x7fffffff }),
    priority: fc.integer({ min: 0, max: 7 }),
    fin: fc.boolean(),
    unidirectional: fc.boolean(),
    headerBlock: bytes,
  }),
  fc.record({ type: fc.constant("syn_reply" as const), streamId, fin: fc.boolean(), headerBlock: bytes }),
  fc.record({ type: fc.constant("headers" as const), streamId, fin: fc.boolean(), headerBlock: bytes }),
  fc.record({ type: fc.constant("rst_stream" as const), streamId, status: u32 }),
  fc.record({
    type: fc.constant("settings" as const),
    entries: fc.array(
      fc.record({
        flags: fc.integer({ min: 0, max: 255 }),
        id: fc.integer({ min: 0, max: 0xffffff }),
        value: u32,
      }),
      { maxLength: 5 },
    ),
  }),
  fc.record({ type: fc.constant("ping" as const), id: u32 }),
  fc.record({
    type: fc.constant("goaway" as const),
    lastGoodStreamId: fc.integer({ min: 0, max: 0x7fffffff }),
    status: u32,
  }),
  fc.record({
    type: fc.constant("window_update" as const),
    streamId: fc.integer({ min: 0, max: 0x7fffffff }),
    delta: fc.integer({ min: 0, max: 0x7fffffff }),
  }),
);

/** Splits `buffer` at the given cut points, as a socket may deliver it. */
function chunks(buffer: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buffer.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const point of points) {
    out.push(buffer.subarray(last, point));
    last = point;
  }
  out.push(buffer.subarray(last));
  return out;
}

describe("SPDY/3.1 frames", () => {
  it("parse back to what was encoded, however the bytes are split", () => {
    fc.assert(
      fc.property(
        fc.array(frame, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (frames, cuts) => {
          const wire = Buffer.concat(frames.map(encodeFrame));
          const reader = new FrameReader();
          const parsed = chunks(wire, cuts).flatMap((chunk) => reader.push(chunk));
          expect(parsed).toEqual(frames);
        },
      ),
    );
  });

  it("matches the draft's layout for a SYN_STREAM and a data frame (as Go's framer writes them)", () => {
    const syn = encodeFrame({
      type: "syn_stream",
      streamId: 1,
      associatedTo: 0,
      priority: 0,
      fin: false,
      unidirectional: false,
      headerBlock: Buffer.from([0xaa]),
    });
    // control bit + version 3, type 1; flags 0, length 11; stream id 1; associated 0; priority/slot 0.
    expect(syn.toString("hex")).toBe("80030001" + "0000000b" + "00000001" + "00000000" + "0000" + "aa");
    const data = encodeFrame({ type: "data", streamId: 3, fin: true, data: Buffer.from("hi") });
    expect(data.toString("hex")).toBe("00000003" + "01000002" + "6869");
  });

  it("refuses other versions and short control frames with a protocol error", () => {
    const v2 = Buffer.from("8002000600000004" + "00000001", "hex");
    expect(() => new FrameReader().push(v2)).toThrow(/unsupported SPDY version 2/);
    const shortRst = Buffer.from("8003000300000004" + "00000001", "hex");
    expect(() => new FrameReader().push(shortRst)).toThrow(/RST_STREAM frame too short/);
  });

  it("refuses frames over the size limit before buffering them", () => {
    const reader = new FrameReader(1024);
    expect(() => reader.push(Buffer.from("0000000100100000", "hex"))).toThrow(SpdyProtocolError);
  });

  it("keeps unknown control types (to be ignored) instead of failing", () => {
    const unknown = Buffer.from("8003f00001000002" + "abcd", "hex");
    expect(new FrameReader().push(unknown)).toEqual([
      { type: "unknown", controlType: 0xf000, flags: 1, payload: Buffer.from("abcd", "hex") },
    ]);
  });

  it("fails arbitrary input only with SpdyProtocolError", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (pieces) => {
        const reader = new FrameReader(4096);
        try {
          for (const piece of pieces) reader.push(Buffer.from(piece));
        } catch (error) {
          expect(error).toBeInstanceOf(SpdyProtocolError);
        }
      }),
    );
  });
});

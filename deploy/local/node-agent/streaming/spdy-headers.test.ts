import zlib from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SPDY3_HEADER_DICTIONARY } from "./spdy-dictionary.js";
import { SpdyProtocolError } from "./spdy-frames.js";
import {
  HeaderBlockDeflater,
  HeaderBlockInflater,
  decodeHeaderBlock,
  encodeHeaderBlock,
  headerValue,
} from "./spdy-headers.js";
import type { SpdyHeaders } from "./spdy-headers.js";

/** A compressor as Go's spdy framer keeps one: one zlib stream with the dictionary, sync-flushed per block. */
function goLikeCompressor(): (block: Buffer) => Promise<Buffer> {
  const deflate = zlib.createDeflate({ dictionary: SPDY3_HEADER_DICTIONARY, level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  return async (block) => {
    deflate.write(block);
    await new Promise<void>((resolve) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    return Buffer.concat(out.splice(0));
  };
}

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const headers = fc.dictionary(
  headerName,
  fc.array(fc.stringMatching(/^[ -~]{0,20}$/), { minLength: 1, maxLength: 3 }),
  {
    maxKeys: 5,
  },
);

describe("SPDY/3 header blocks", () => {
  it("carries the draft's dictionary (1423 bytes, Adler-32 e3c6a7c2)", () => {
    expect(SPDY3_HEADER_DICTIONARY.length).toBe(1423);
    const inflated = zlib.inflateSync(
      zlib.deflateSync(Buffer.from("x"), { dictionary: SPDY3_HEADER_DICTIONARY }),
      {
        dictionary: SPDY3_HEADER_DICTIONARY,
      },
    );
    expect(inflated.toString()).toBe("x");
    // The zlib header of a dictionary stream names the dictionary by its Adler-32.
    const header = zlib.deflateSync(Buffer.from("x"), { dictionary: SPDY3_HEADER_DICTIONARY });
    expect(header.subarray(2, 6).toString("hex")).toBe("e3c6a7c2");
  });

  it("encodes and decodes name/value blocks, several values joined by NUL", () => {
    const block = encodeHeaderBlock({ streamtype: ["error"], "x-multi": ["a", "b"] });
    expect(decodeHeaderBlock(block)).toEqual({ streamtype: ["error"], "x-multi": ["a", "b"] });
    expect(block.subarray(0, 4).readUInt32BE()).toBe(2);
  });

  it("lower-cases names and answers the first value as Go's Header.Get", () => {
    const decoded = decodeHeaderBlock(encodeHeaderBlock({ StreamType: ["stdout"] }));
    expect(headerValue(decoded, "streamType")).toBe("stdout");
  });

  it("rejects truncated blocks", () => {
    const block = encodeHeaderBlock({ port: ["8080"] });
    expect(() => decodeHeaderBlock(block.subarray(0, block.length - 1))).toThrow(SpdyProtocolError);
    expect(() => decodeHeaderBlock(Buffer.alloc(2))).toThrow(SpdyProtocolError);
  });

  it("inflates a connection's blocks compressed as Go compresses them, in one zlib context", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(headers, { minLength: 1, maxLength: 6 }), async (blocks) => {
        const compress = goLikeCompressor();
        const inflater = new HeaderBlockInflater();
        try {
          for (const h of blocks) {
            expect(
              decodeHeaderBlock(await inflater.decompress(await compress(encodeHeaderBlock(h)))),
            ).toEqual(h);
          }
        } finally {
          inflater.close();
        }
      }),
      { numRuns: 30 },
    );
  });

  it("writes blocks any zlib inflater with the dictionary reads back in sequence", async () => {
    const deflater = new HeaderBlockDeflater();
    const inflater = new HeaderBlockInflater();
    const big = { cookie: ["x".repeat(70_000)] };
    for (const h of [{ streamtype: ["stdout"] }, big, {}] as SpdyHeaders[]) {
      expect(decodeHeaderBlock(await inflater.decompress(deflater.compress(encodeHeaderBlock(h))))).toEqual(
        h,
      );
    }
    inflater.close();
  });

  it("ends every block with the sync-flush marker Go's flate reader needs to hand the block on", () => {
    const deflater = new HeaderBlockDeflater();
    const first = deflater.compress(encodeHeaderBlock({ a: ["b"] }));
    const second = deflater.compress(encodeHeaderBlock({}));
    expect(first.subarray(0, 2).toString("hex")).toBe("7801");
    for (const block of [first, second]) expect(block.subarray(-5).toString("hex")).toBe("000000ffff");
    // The second block continues the stream: stored block of the 4-byte count, then the marker.
    expect(second.toString("hex")).toBe("000400fbff00000000" + "000000ffff");
  });

  it("reports garbage as a protocol error", async () => {
    const inflater = new HeaderBlockInflater();
    await expect(inflater.decompress(Buffer.from("not zlib at all"))).rejects.toThrow(SpdyProtocolError);
    inflater.close();
  });
});

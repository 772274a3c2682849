import zlib from "node:zlib";
import { SPDY3_HEADER_DICTIONARY } from "./spdy-dictionary.js";
import { SpdyProtocolError } from "./spdy-frames.js";

// SPDY/3 name/value header blocks (draft 3.1, section 2.6.10): a 32-bit pair count, then each name and
// value with a 32-bit length; several values of one name are joined with NUL. Each direction of a
// connection is one zlib stream, primed with the spec's dictionary and flushed (Z_SYNC_FLUSH) after every
// block, so the inflater must live as long as the connection.

/** Header names are lower case on the wire; values keep their order. */
export type SpdyHeaders = Record<string, string[]>;

const MAX_HEADER_BLOCK = 1 << 20;

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const entries = Object.entries(headers);
  const count = Buffer.alloc(4);
  count.writeUInt32BE(entries.length);
  parts.push(count);
  for (const [name, values] of entries) {
    for (const text of [name.toLowerCase(), values.join("\0")]) {
      const bytes = Buffer.from(text, "utf8");
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const fail = (why: string): never => {
    throw new SpdyProtocolError(`malformed header block: ${why}`);
  };
  if (block.length < 4) fail("missing pair count");
  const count = block.readUInt32BE(0);
  let offset = 4;
  const read = (what: string): string => {
    if (block.length - offset < 4) fail(`truncated ${what} length`);
    const length = block.readUInt32BE(offset);
    offset += 4;
    if (block.length - offset < length) fail(`truncated ${what}`);
    const text = block.subarray(offset, offset + length).toString("utf8");
    offset += length;
    return text;
  };
  const headers: SpdyHeaders = {};
  for (let i = 0; i < count; i++) {
    const name = read("name").toLowerCase();
    if (name === "") fail("empty header name");
    const value = read("value");
    headers[name] = [...(headers[name] ?? []), ...value.split("\0")];
  }
  return headers;
}

/** The first value of a header, as Go's http.Header.Get answers it. */
export function headerValue(headers: SpdyHeaders, name: string): string | undefined {
  return headers[name.toLowerCase()]?.[0];
}

/**
 * Compresses outgoing header blocks. The blocks are a few dozen bytes, so they go out as zlib "stored"
 * (uncompressed) deflate blocks: a valid continuation of one zlib stream for any inflater, with no
 * compressor state to keep in step. The zlib header carries no preset-dictionary flag; Go's reader then
 * uses the dictionary only as history, which stored blocks never refer to. Each block ends with the
 * empty stored block a Z_SYNC_FLUSH writes (00 00 00 ff ff): Go's flate reader hands data on only at
 * such a marker (or a full window), and would otherwise read past the frame and fail for good.
 */
export class HeaderBlockDeflater {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      parts.push(Buffer.from([0x78, 0x01]));
      this.started = true;
    }
    for (let offset = 0; offset < block.length; offset += 0xffff) {
      parts.push(storedBlock(block.subarray(offset, offset + 0xffff)));
    }
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** A non-final deflate block holding `data` as is (BFINAL=0, BTYPE=00, then LEN and its complement). */
function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/** Decompresses incoming header blocks with one zlib context for the whole connection; calls must not overlap. */
export class HeaderBlockInflater {
  private readonly inflate = zlib.createInflate({ dictionary: SPDY3_HEADER_DICTIONARY });
  private output: Buffer[] = [];
  private size = 0;
  private failure: Error | undefined;

  constructor() {
    this.inflate.on("data", (chunk: Buffer) => {
      this.output.push(chunk);
      this.size += chunk.length;
    });
    this.inflate.on("error", (error: Error) => (this.failure = error));
  }

  async decompress(compressed: Buffer): Promise<Buffer> {
    if (this.failure) throw new SpdyProtocolError(`header decompression failed: ${this.failure.message}`);
    this.inflate.write(compressed);
    // A corrupt stream fails with an error event and never calls the flush back.
    await new Promise<void>((resolve) => {
      const done = () => {
        this.inflate.off("error", done);
        resolve();
      };
      this.inflate.once("error", done);
      this.inflate.flush(zlib.constants.Z_SYNC_FLUSH, done);
    });
    const failure = this.failure as Error | undefined;
    if (failure) throw new SpdyProtocolError(`header decompression failed: ${failure.message}`);
    if (this.size > MAX_HEADER_BLOCK) throw new SpdyProtocolError("header block too large");
    const block = Buffer.concat(this.output);
    this.output = [];
    this.size = 0;
    return block;
  }

  close(): void {
    this.inflate.destroy();
  }
}

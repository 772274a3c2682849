// Byte-level XDR (RFC 4506): big-endian 4-byte units, variable data padded to a multiple of 4.
// The codecs in xdr.ts are built on these two classes.

/** The bytes do not hold a valid value of the expected XDR type. */
export class XdrDecodeError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly path: readonly string[] = [],
  ) {
    super(`${path.length === 0 ? "" : `${path.join(".")}: `}${reason} (at byte ${offset})`);
    this.name = "XdrDecodeError";
  }
}

/** A value cannot be encoded as the declared XDR type (wrong type, out of range, too long). */
export class XdrEncodeError extends Error {
  constructor(
    readonly reason: string,
    readonly path: readonly string[] = [],
  ) {
    super(path.length === 0 ? reason : `${path.join(".")}: ${reason}`);
    this.name = "XdrEncodeError";
  }
}

/** Runs `step` and prefixes the field/arm name to the path of any XDR error it throws. */
export function atPath<T>(segment: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof XdrEncodeError) throw new XdrEncodeError(error.reason, [segment, ...error.path]);
    if (error instanceof XdrDecodeError) {
      throw new XdrDecodeError(error.reason, error.offset, [segment, ...error.path]);
    }
    throw error;
  }
}

export function paddingOf(length: number): number {
  return (4 - (length % 4)) % 4;
}

const INITIAL_CAPACITY = 256;

export class XdrWriter {
  private buffer = Buffer.alloc(INITIAL_CAPACITY);
  private length = 0;

  /** Room for `bytes` more; may replace `this.buffer`, so callers take the offset before writing. */
  private reserve(bytes: number): number {
    const start = this.length;
    const needed = start + bytes;
    if (needed > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, start);
      this.buffer = grown;
    }
    this.length = needed;
    return start;
  }

  writeInt32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeInt32BE(value, offset);
  }

  writeUint32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeUInt32BE(value, offset);
  }

  writeInt64(value: bigint): void {
    const offset = this.reserve(8);
    this.buffer.writeBigInt64BE(value, offset);
  }

  writeUint64(value: bigint): void {
    const offset = this.reserve(8);
    this.buffer.writeBigUInt64BE(value, offset);
  }

  writeFloat32(value: number): void {
    const offset = this.reserve(4);
    this.buffer.writeFloatBE(value, offset);
  }

  writeFloat64(value: number): void {
    const offset = this.reserve(8);
    this.buffer.writeDoubleBE(value, offset);
  }

  /** Writes the bytes followed by zero padding up to the next 4-byte boundary. */
  writePadded(bytes: Uint8Array): void {
    const start = this.reserve(bytes.length + paddingOf(bytes.length));
    this.buffer.set(bytes, start);
    // reserve() may reuse bytes of an earlier, larger buffer: zero the padding explicitly.
    this.buffer.fill(0, start + bytes.length, this.length);
  }

  get byteLength(): number {
    return this.length;
  }

  /** A copy of everything written so far. */
  toBuffer(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

export class XdrReader {
  private position: number;
  private readonly view: Buffer;

  constructor(bytes: Uint8Array) {
    this.view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.position = 0;
  }

  get offset(): number {
    return this.position;
  }

  get remaining(): number {
    return this.view.length - this.position;
  }

  private take(bytes: number): number {
    if (bytes > this.remaining) {
      throw new XdrDecodeError(`needs ${bytes} more bytes, only ${this.remaining} left`, this.position);
    }
    const start = this.position;
    this.position += bytes;
    return start;
  }

  readInt32(): number {
    return this.view.readInt32BE(this.take(4));
  }

  readUint32(): number {
    return this.view.readUInt32BE(this.take(4));
  }

  readInt64(): bigint {
    return this.view.readBigInt64BE(this.take(8));
  }

  readUint64(): bigint {
    return this.view.readBigUInt64BE(this.take(8));
  }

  readFloat32(): number {
    return this.view.readFloatBE(this.take(4));
  }

  readFloat64(): number {
    return this.view.readDoubleBE(this.take(8));
  }

  /** Reads `length` bytes and skips their padding; the result is a copy, safe to keep. */
  readPadded(length: number): Buffer {
    const start = this.take(length + paddingOf(length));
    return Buffer.from(this.view.subarray(start, start + length));
  }

  /** Fails unless every byte was consumed: trailing bytes mean the two sides disagree on the type. */
  expectEnd(): void {
    if (this.remaining !== 0) {
      throw new XdrDecodeError(`${this.remaining} unexpected trailing bytes`, this.position);
    }
  }
}

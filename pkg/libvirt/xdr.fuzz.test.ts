import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PacketSplitter } from "./framing.js";
import { LibvirtProtocolError } from "./errors.js";
import { qemuProcedures } from "./generated/qemu-protocol.js";
import { remoteProcedures } from "./generated/remote-protocol.js";
import { VirNetMessageErrorCodec, VirNetMessageHeaderCodec } from "./generated/virnet-protocol.js";
import type { ProcedureInfo } from "./procedure.js";
import { XdrDecodeError, decodeXdr, encodeXdr } from "./xdr.js";
import type { XdrCodec } from "./xdr.js";

// Every payload codec the daemon could make us decode, plus the framing types.
const codecs: XdrCodec<unknown>[] = [
  VirNetMessageHeaderCodec,
  VirNetMessageErrorCodec,
  ...[...Object.values(remoteProcedures), ...Object.values(qemuProcedures)].flatMap((p: ProcedureInfo) =>
    [p.args, p.ret, p.message].filter((c): c is XdrCodec<unknown> => c !== null),
  ),
];

/** Bytes that often look like plausible XDR: small lengths and flags, not just noise. */
const xdrish = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 3 }).map((n) => [0, 0, 0, n]),
      fc.integer({ min: 0, max: 40 }).map((n) => [0, 0, 0, n]),
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
    ),
    { maxLength: 64 },
  )
  .map((parts) => Uint8Array.from(parts.flat()));

describe("decoding untrusted bytes", () => {
  it("fails only with XdrDecodeError, and what decodes re-encodes to the same value", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: codecs.length - 1 }),
        fc.oneof(xdrish, fc.uint8Array({ maxLength: 256 })),
        (index, input) => {
          const codec = codecs[index] as XdrCodec<unknown>;
          let value: unknown;
          try {
            value = decodeXdr(codec, input);
          } catch (error) {
            expect(error).toBeInstanceOf(XdrDecodeError);
            return;
          }
          expect(decodeXdr(codec, encodeXdr(codec, value))).toEqual(value);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("a packet stream either splits into packets or fails with LibvirtProtocolError", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        const splitter = new PacketSplitter();
        try {
          for (const chunk of chunks) splitter.push(Buffer.from(chunk));
        } catch (error) {
          expect(error).toBeInstanceOf(LibvirtProtocolError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

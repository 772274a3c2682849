// A PNG reader for tests that look at what a screenshot shows: 8-bit, non-interlaced images, checked
// chunk by chunk as it goes. Node has zlib but no PNG decoder, and a dependency for 60 lines is not worth it.
import { crc32, inflateSync } from "node:zlib";
import { expect } from "vitest";

export interface PNGImage {
  width: number;
  height: number;
  chunks: string[];
  /** Row by row, `channels` bytes a pixel (8-bit PNGs only). */
  pixels: Buffer;
  channels: number;
}

/** Checks a PNG byte by byte (signature, every chunk's CRC, IHDR first, IEND last, IDAT inflating to the
 * size IHDR promises) and undoes its row filters (RFC 2083 6.2) so the test can read the pixels. */
export function decodePNG(bytes: Buffer): PNGImage {
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  const chunks: string[] = [];
  const data: Buffer[] = [];
  let header: Buffer | undefined;
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString("latin1");
    const body = bytes.subarray(at + 8, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(
      crc32(bytes.subarray(at + 4, at + 8 + length)),
    );
    chunks.push(type);
    if (type === "IHDR") header = body;
    if (type === "IDAT") data.push(body);
    at += 12 + length;
  }
  expect(chunks[0]).toBe("IHDR");
  expect(chunks.at(-1)).toBe("IEND");
  if (!header) throw new Error("no IHDR");
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colourType, interlace] = [header.readUInt8(8), header.readUInt8(9), header.readUInt8(12)];
  expect({ depth, interlace }).toEqual({ depth: 8, interlace: 0 });
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colourType] ?? 0;
  expect(channels, `colour type ${colourType}`).toBeGreaterThan(0);
  const rowBytes = width * channels;
  const filtered = inflateSync(Buffer.concat(data));
  expect(filtered.length).toBe(height * (1 + rowBytes));
  const pixels = Buffer.alloc(height * rowBytes);
  for (let y = 0; y < height; y++) {
    const filter = filtered[y * (1 + rowBytes)];
    for (let x = 0; x < rowBytes; x++) {
      const raw = filtered[y * (1 + rowBytes) + 1 + x] ?? 0;
      const left = x >= channels ? (pixels[y * rowBytes + x - channels] ?? 0) : 0;
      const up = y > 0 ? (pixels[(y - 1) * rowBytes + x] ?? 0) : 0;
      const upLeft = y > 0 && x >= channels ? (pixels[(y - 1) * rowBytes + x - channels] ?? 0) : 0;
      const paeth = () => {
        const p = left + up - upLeft;
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return a <= b && a <= c ? left : b <= c ? up : upLeft;
      };
      const predictor = [0, left, up, (left + up) >> 1, paeth()][filter ?? 0];
      if (predictor === undefined) throw new Error(`row ${y}: filter type ${filter}`);
      pixels[y * rowBytes + x] = (raw + predictor) & 0xff;
    }
  }
  return { width, height, chunks, pixels, channels };
}

/** How many pixels are bright (text on the console's dark background). */
export function brightPixels(image: PNGImage): number {
  let count = 0;
  for (let at = 0; at < image.pixels.length; at += image.channels) {
    if ((image.pixels[at] ?? 0) > 128 || (image.pixels[at + 1] ?? 0) > 128) count++;
  }
  return count;
}

// The qemu-img calls the launcher makes: copy-on-write overlays, blank qcow2 images, and probing
// an image's format. Errors carry qemu-img's own output, as upstream reports them.
import { execFile } from "node:child_process";
import { z } from "zod";

export class QemuImgError extends Error {
  override name = "QemuImgError";
}

function run(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("qemu-img", args, { encoding: "utf8" }, (error, stdout, stderr) => {
      if (error)
        reject(
          new QemuImgError(`qemu-img failed with output '${`${stdout}${stderr}`.trim()}': ${error.message}`),
        );
      else resolve(stdout);
    });
  });
}

/** A qcow2 image at `imagePath` whose reads fall through to `backingFile` (never written). */
export async function createBackedImage(
  backingFile: string,
  backingFormat: string,
  imagePath: string,
): Promise<void> {
  await run(["create", "-f", "qcow2", "-b", backingFile, "-F", backingFormat, imagePath]);
}

/** A blank qcow2 image of `sizeBytes` (it grows on write). */
export async function createQcow2(imagePath: string, sizeBytes: bigint): Promise<void> {
  await run(["create", "-f", "qcow2", imagePath, sizeBytes.toString()]);
}

const ImageInfoSchema = z.looseObject({
  format: z.string(),
  "virtual-size": z.number(),
  "actual-size": z.number().optional(),
  "backing-filename": z.string().optional(),
  "backing-filename-format": z.string().optional(),
});

export interface ImageInfo {
  format: string;
  virtualSize: number;
  actualSize?: number;
  backingFile?: string;
  backingFormat?: string;
}

/** `qemu-img info` of one image (its backing chain is not opened). */
export async function imageInfo(imagePath: string): Promise<ImageInfo> {
  const info = ImageInfoSchema.parse(JSON.parse(await run(["info", "--output=json", "-U", imagePath])));
  return {
    format: info.format,
    virtualSize: info["virtual-size"],
    ...(info["actual-size"] !== undefined ? { actualSize: info["actual-size"] } : {}),
    ...(info["backing-filename"] !== undefined ? { backingFile: info["backing-filename"] } : {}),
    ...(info["backing-filename-format"] !== undefined
      ? { backingFormat: info["backing-filename-format"] }
      : {}),
  };
}

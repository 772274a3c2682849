// What decides whether the base image is built again and whether an image is exported again.
import { createHash } from "node:crypto";

/** The inputs of the local Node base image: its recipe and the Node.js it copies from this machine. */
export interface BaseInputs {
  /** The recipe: the base builder's own source text (an edit rebuilds). */
  recipe: string;
  /** `node --version` of the copied node. */
  nodeVersion: string;
  /** The version of Debian's package the node files come from (dpkg). */
  nodePackageVersion: string;
  /** The version of the npm copied with it (updated in place, so not necessarily the package's). */
  npmVersion: string;
}

export function baseStamp(inputs: BaseInputs): string {
  const hash = createHash("sha256");
  for (const key of Object.keys(inputs).sort() as (keyof BaseInputs)[]) {
    hash.update(`${key}\0${inputs[key]}\0`);
  }
  return hash.digest("hex");
}

/** The base image's stamp file: the stamp of what it was built from, and the image that build made. */
export interface BaseStampFile {
  stamp: string;
  image: string;
  imageID: string;
}

export function parseBaseStampFile(text: string | undefined): BaseStampFile | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<BaseStampFile>;
    if (
      typeof parsed.stamp === "string" &&
      typeof parsed.image === "string" &&
      typeof parsed.imageID === "string"
    ) {
      return { stamp: parsed.stamp, image: parsed.image, imageID: parsed.imageID };
    }
  } catch {
    // a broken stamp: build again
  }
  return undefined;
}

/** Whether the base is current: same inputs, and the storage still holds the image that build made under its name. */
export function baseIsCurrent(
  stampFile: BaseStampFile | undefined,
  stamp: string,
  image: string,
  storedImageID: string | undefined,
): boolean {
  return (
    stampFile !== undefined &&
    stampFile.stamp === stamp &&
    stampFile.image === image &&
    storedImageID !== undefined &&
    stampFile.imageID === storedImageID
  );
}

/** An export is current when its stamp (the file image-id beside the rootfs) names the image's ID. */
export function exportIsCurrent(imageIdFile: string | undefined, imageID: string): boolean {
  return imageIdFile?.trim() === imageID;
}

/** An image's stamp file: the hash of what it was built from, the image that build made, and its steps' images. */
export interface ImageStampFile {
  inputs: string;
  image: string;
  imageID: string;
  /** The images of the build's steps (the layer cache the next build needs), as buildah printed them. */
  steps: string[];
}

export function parseImageStampFile(text: string | undefined): ImageStampFile | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<ImageStampFile>;
    if (
      typeof parsed.inputs === "string" &&
      typeof parsed.image === "string" &&
      typeof parsed.imageID === "string" &&
      Array.isArray(parsed.steps) &&
      parsed.steps.every((step) => typeof step === "string")
    ) {
      return { inputs: parsed.inputs, image: parsed.image, imageID: parsed.imageID, steps: parsed.steps };
    }
  } catch {
    // a broken stamp: build again
  }
  return undefined;
}

/** An image is current when it was built from these inputs under this name and the storage still holds it. */
export function imageIsCurrent(
  stampFile: ImageStampFile | undefined,
  inputs: string,
  image: string,
  storedImageID: string | undefined,
): boolean {
  return (
    stampFile !== undefined &&
    stampFile.inputs === inputs &&
    stampFile.image === image &&
    storedImageID !== undefined &&
    stampFile.imageID === storedImageID
  );
}

/** The stamp file's name for an image name (a path component: what a name holds beyond [A-Za-z0-9._-] becomes _). */
export function imageStampFileName(image: string): string {
  return `${image.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
}

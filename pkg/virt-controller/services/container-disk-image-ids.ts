// The disk images a migration target must run (upstream's containerdisk.ExtractImageIDsFromSourcePod):
// the exact digests the source pod's disk containers run, so that the target serves the same bytes even
// if a tag moved since the source started.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Pod } from "../../api/core/v1/pod.js";
import { containerDiskImages } from "./container-disk.js";

const digestPattern = /sha256:([a-zA-Z0-9]+)/;
const DiskContainerPrefix = "volume";

/** `image` without its tag or digest, with the digest of `imageID`. */
export function toImageWithDigest(image: string, imageID: string): string {
  let base = image;
  if (image.lastIndexOf("@sha256:") !== -1) {
    base = image.split("@sha256:")[0] ?? image;
  } else {
    const colon = image.lastIndexOf(":");
    if (colon > image.lastIndexOf("/")) base = image.slice(0, colon);
  }
  const digest = digestPattern.exec(imageID)?.[1];
  if (!digest)
    throw new Error(`failed to identify image digest for container "${image}" with id "${imageID}"`);
  return `${base}@sha256:${digest}`;
}

/** Volume name → the image its disk container runs on the source (pinned to a digest where reported). */
export function extractImageIDsFromSourcePod(
  vmi: VirtualMachineInstance,
  sourcePod: Pod,
): Map<string, string> {
  const imageIDs = new Map<string, string>();
  for (const image of containerDiskImages(vmi)) imageIDs.set(image.volumeName, image.source.image);
  for (const status of sourcePod.status?.containerStatuses ?? []) {
    if (!status.name.startsWith(DiskContainerPrefix)) continue;
    const volumeName = status.name.slice(DiskContainerPrefix.length);
    const image = imageIDs.get(volumeName);
    if (image === undefined) continue;
    imageIDs.set(volumeName, toImageWithDigest(image, status.imageID ?? ""));
  }
  return imageIDs;
}

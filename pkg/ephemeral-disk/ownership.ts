// Who must own what the launcher prepares for QEMU (upstream ephemeral-disk-utils
// OwnershipManager): when the launcher runs as root and QEMU as an unprivileged uid, the images,
// ISOs and directories QEMU opens are handed to that uid; when both run as the same uid, nothing
// needs to change hands.
import { chown } from "node:fs/promises";

export interface FileOwnership {
  /** Gives `path` to QEMU's user (not recursive). */
  setFileOwnership(path: string): Promise<void>;
}

export const keepOwnership: FileOwnership = { setFileOwnership: () => Promise.resolve() };

export function ownershipFor(uid: number, gid: number): FileOwnership {
  return { setFileOwnership: (path) => chown(path, uid, gid) };
}

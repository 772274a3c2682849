// Paths a Pod controls, opened without following any symlink below a trusted root (upstream
// safepath.JoinNoFollow): each component is opened with O_PATH|O_NOFOLLOW relative to the previous one through
// /proc/self/fd, so neither a planted symlink nor a swap during the walk can lead elsewhere. The opened
// file is then reached as /proc/self/fd/<fd>, which also keeps unix socket paths under 108 bytes.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** Linux's O_PATH (the same value on x86-64 and arm64); node does not export it. */
const O_PATH = 0o10000000;

export type FileKind = "socket" | "directory" | "file";

export class UnsafePathError extends Error {}

/** A component is one plain name: no separators, no `.` or `..`, no NUL. */
function checkComponent(component: string): void {
  if (component === "" || component === "." || component === ".." || /[/\0]/.test(component))
    throw new UnsafePathError(`invalid path component ${JSON.stringify(component)}`);
}

const procPath = (handle: FileHandle, child?: string): string =>
  child === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${child}`;

function kindMatches(
  kind: FileKind,
  stat: { isSocket(): boolean; isDirectory(): boolean; isFile(): boolean },
) {
  return kind === "socket" ? stat.isSocket() : kind === "directory" ? stat.isDirectory() : stat.isFile();
}

/** An O_PATH handle on the file; it only names the file, so close it once it has been used. */
export interface SafePath {
  /** The file as /proc/self/fd/<fd>: dial or stat it through this. */
  readonly procPath: string;
  close(): Promise<void>;
}

/**
 * Opens `root/components...` refusing symlinks anywhere below `root` (the root itself is trusted) and
 * anything that is not a directory on the way or not `kind` at the end.
 */
export async function openNoFollow(
  root: string,
  components: readonly string[],
  kind: FileKind,
): Promise<SafePath> {
  components.forEach(checkComponent);
  let current = await open(root, O_PATH | constants.O_DIRECTORY);
  try {
    for (const [index, component] of components.entries()) {
      const next = await open(procPath(current, component), O_PATH | constants.O_NOFOLLOW);
      await current.close();
      current = next;
      const stat = await current.stat();
      const last = index === components.length - 1;
      if (stat.isSymbolicLink()) throw new UnsafePathError(`${component} is a symlink`);
      if (!kindMatches(last ? kind : "directory", stat))
        throw new UnsafePathError(`${component} is not a ${last ? kind : "directory"}`);
    }
  } catch (error) {
    await current.close();
    throw error;
  }
  const handle = current;
  return { procPath: procPath(handle), close: () => handle.close() };
}

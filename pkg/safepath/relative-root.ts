import { lstat, readlink } from "node:fs/promises";
import { posix } from "node:path";

// Paths inside another process's root, resolved the way that process would resolve them (upstream
// safepath.JoinAndResolveWithRelativeRoot). Opening `/proc/<pid>/root/var/run/x` directly is not safe:
// an absolute symlink in the pod (`/var/run -> /run` is common) is resolved against the caller's root,
// so a pod could send the privileged handler anywhere on the node. Here every symlink is read and
// followed inside `root`, and `..` stops at `root`.

/** Linux's limit on symlinks followed in one lookup (MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

export class SymlinkLoopError extends Error {
  override readonly name = "SymlinkLoopError";
}

/**
 * `root` joined with `path` as seen from inside `root`: the result lies below `root` and has no symlink
 * among its existing components. Components that do not exist (yet) are appended as they are.
 */
export async function resolveInRoot(root: string, path: string): Promise<string> {
  const resolved: string[] = [];
  const pending = splitComponents(path);
  let followed = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === "..") {
      resolved.pop();
      continue;
    }
    const candidate = posix.join(root, ...resolved, name);
    const stats = await lstat(candidate).catch((error: unknown) =>
      isNotFound(error) ? undefined : Promise.reject(error),
    );
    if (!stats) return posix.join(root, ...resolved, name, ...pending);
    if (!stats.isSymbolicLink()) {
      resolved.push(name);
      continue;
    }
    if (++followed > MAX_SYMLINKS) throw new SymlinkLoopError(`too many levels of symbolic links in ${path}`);
    const target = await readlink(candidate);
    if (target.startsWith("/")) resolved.length = 0;
    pending.unshift(...splitComponents(target));
  }
  return posix.join(root, ...resolved);
}

function splitComponents(path: string): string[] {
  return path.split("/").filter((component) => component !== "" && component !== ".");
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

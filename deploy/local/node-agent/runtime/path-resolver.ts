import { lstat, readlink } from "node:fs/promises";
import path from "node:path";

// Resolves a path the way a process inside a container would see it, without ever leaving the container's
// root: `..` stops at the root and symlinks (absolute or relative) are followed inside the view, not on the
// host. A view is a stack of layers (the root, then mounts at deeper paths), each backed by a host directory
// or by an empty in-memory directory. The result names only real directories (no symlinks), so creating or
// mounting on it cannot be redirected elsewhere. This is what securejoin does for kubelet and runc.

export type EntryKind = "directory" | "file" | "symlink" | "other";

export interface FsProbe {
  kind(hostPath: string): Promise<EntryKind | undefined>;
  readlink(hostPath: string): Promise<string>;
}

export const hostFs: FsProbe = {
  async kind(hostPath) {
    try {
      const stats = await lstat(hostPath);
      if (stats.isSymbolicLink()) return "symlink";
      if (stats.isDirectory()) return "directory";
      return stats.isFile() ? "file" : "other";
    } catch (error) {
      if (["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) return undefined;
      throw error;
    }
  },
  readlink: (hostPath) => readlink(hostPath),
};

export interface ViewLayer {
  /** Where the layer appears in the view (absolute, normalized). */
  at: string;
  /** The host directory (or file) backing it; null for an empty in-memory directory. */
  source: string | null;
}

export interface ResolvedPath {
  /** The path inside the view, absolute, without symlinks or `..`. */
  path: string;
  /** The host path backing it, or undefined inside an in-memory layer. */
  hostPath: string | undefined;
  /** What is there now; undefined when it does not exist yet. */
  kind: Exclude<EntryKind, "symlink"> | undefined;
}

export class PathResolutionError extends Error {
  override readonly name = "PathResolutionError";
}

const MAX_SYMLINKS = 40;

function components(text: string): string[] {
  return text.split("/").filter((part) => part !== "" && part !== ".");
}

/** The host path behind a view path: the deepest layer that holds it, plus the rest of the path. */
export function hostPathIn(
  layers: readonly ViewLayer[],
  parts: readonly string[],
): string | null | undefined {
  let best: { layer: ViewLayer; depth: number } | undefined;
  for (const layer of layers) {
    const at = components(layer.at);
    if (at.length > parts.length || at.some((part, i) => parts[i] !== part)) continue;
    if (!best || at.length >= best.depth) best = { layer, depth: at.length };
  }
  if (!best) return undefined;
  if (best.layer.source === null) return best.depth === parts.length ? null : undefined;
  return path.join(best.layer.source, ...parts.slice(best.depth));
}

export async function resolveInView(
  layers: readonly ViewLayer[],
  unsafePath: string,
  probe: FsProbe = hostFs,
): Promise<ResolvedPath> {
  const remaining = components(unsafePath);
  let current: string[] = [];
  let kind: ResolvedPath["kind"] = "directory";
  let links = 0;
  while (remaining.length > 0) {
    const part = remaining.shift() as string;
    if (part === "..") {
      current = current.slice(0, -1);
      kind = "directory";
      continue;
    }
    if (kind !== undefined && kind !== "directory") {
      throw new PathResolutionError(`${unsafePath}: /${current.join("/")} is not a directory`);
    }
    const candidate = [...current, part];
    const backing = hostPathIn(layers, candidate);
    const found =
      backing === null ? "directory" : backing === undefined ? undefined : await probe.kind(backing);
    if (found === "symlink") {
      if (++links > MAX_SYMLINKS)
        throw new PathResolutionError(`${unsafePath}: too many levels of symbolic links`);
      const target = await probe.readlink(backing as string);
      if (target.startsWith("/")) current = [];
      remaining.unshift(...components(target));
      continue;
    }
    current = candidate;
    kind = found;
  }
  const backing = hostPathIn(layers, current);
  return { path: `/${current.join("/")}`, hostPath: backing ?? undefined, kind };
}

/** A host path for `unsafePath` taken relative to `root`, guaranteed to stay inside `root`. */
export async function secureJoin(root: string, unsafePath: string, probe: FsProbe = hostFs): Promise<string> {
  const resolved = await resolveInView([{ at: "/", source: root }], unsafePath, probe);
  return resolved.hostPath as string;
}

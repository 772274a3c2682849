import { readFile } from "node:fs/promises";

// /proc/<pid>/mountinfo, parsed: which mounts exist and how they nest. Used to rebuild the host's mounts
// inside a container root and to find mounts under a directory before removing it.

export interface MountEntry {
  id: number;
  parentId: number;
  /** The mount's root within its filesystem: a bind mount's source, as a path when that filesystem is at /. */
  root: string;
  mountPoint: string;
  fsType: string;
  source: string;
  /** The filesystem's own options: an overlay's lowerdir=, upperdir= ... */
  superOptions: string;
}

/** Undoes the kernel's octal escapes (`\040` for a space) in mountinfo paths. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const fields = line.split(" ");
    const separator = fields.indexOf("-");
    const [id, parentId, , root, mountPoint] = fields;
    const fsType = fields[separator + 1];
    const source = fields[separator + 2];
    if (separator < 6 || !id || !parentId || !root || !mountPoint || !fsType || source === undefined) {
      throw new Error(`malformed mountinfo line: ${line}`);
    }
    entries.push({
      id: Number(id),
      parentId: Number(parentId),
      root: unescape(root),
      mountPoint: unescape(mountPoint),
      fsType,
      source,
      superOptions: fields[separator + 3] ?? "",
    });
  }
  return entries;
}

/** An overlay's lower directories, bottom last as the kernel lists them; none for other filesystems. */
export function overlayLowerDirs(entry: MountEntry): string[] {
  if (entry.fsType !== "overlay") return [];
  const option = entry.superOptions.split(",").find((value) => value.startsWith("lowerdir="));
  return (option?.slice("lowerdir=".length) ?? "").split(":").filter(Boolean).map(unescape);
}

export async function readMountInfo(pid: number | "self" = "self"): Promise<MountEntry[]> {
  return parseMountInfo(await readFile(`/proc/${pid}/mountinfo`, "utf8"));
}

/** The mounts directly on top of the root mount, i.e. what a copy of "/" without submounts lacks. */
export function topLevelMounts(entries: readonly MountEntry[]): MountEntry[] {
  const roots = entries.filter((entry) => entry.mountPoint === "/");
  const root = roots[roots.length - 1];
  if (!root) throw new Error("mountinfo has no root mount");
  return entries.filter((entry) => entry.parentId === root.id && entry.mountPoint !== "/");
}

/** Mount points at or below `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(entries: readonly MountEntry[], dir: string): string[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const points = entries
    .map((entry) => entry.mountPoint)
    .filter((point) => point === dir || point.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.split("/").length - a.split("/").length || b.localeCompare(a));
}

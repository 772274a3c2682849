// /proc/<pid>/mountinfo as virt-handler reads it (upstream pkg/virt-handler/isolation's mountinfo use):
// which filesystem (device) and which directory of it (root) is mounted where, so that a path seen by one
// process can be named as the node sees it (upstream ParentPathForRootMount).
import { readFile } from "node:fs/promises";
import { posix } from "node:path";

export interface MountInfoEntry {
  /** major:minor of the filesystem. */
  device: string;
  /** The directory of that filesystem mounted here. */
  root: string;
  mountPoint: string;
}

const unescape = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

export function parseMountInfoEntries(text: string): MountInfoEntry[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [, , device, root, mountPoint] = line.split(" ");
      if (!device || !root || !mountPoint) throw new Error(`malformed mountinfo line: ${line}`);
      return { device, root: unescape(root), mountPoint: unescape(mountPoint) };
    });
}

export async function readMountInfoOf(procDir: string, pid: number | "self"): Promise<MountInfoEntry[]> {
  return parseMountInfoEntries(await readFile(posix.join(procDir, String(pid), "mountinfo"), "utf8"));
}

function within(child: string, parent: string): string | undefined {
  if (parent === "/") return child;
  if (child === parent) return "/";
  return child.startsWith(`${parent}/`) ? child.slice(parent.length) : undefined;
}

/** The mount a path lies on in a view: the last-mounted of the deepest mount points containing it. */
export function mountOf(entries: readonly MountInfoEntry[], file: string): MountInfoEntry | undefined {
  let best: MountInfoEntry | undefined;
  for (const entry of entries) {
    if (within(file, entry.mountPoint) === undefined) continue;
    if (!best || entry.mountPoint.length >= best.mountPoint.length) best = entry;
  }
  return best;
}

/**
 * `file` (absolute, in the view `from` describes) as the node names it: a node mount of the same
 * filesystem showing the directory `file` lies in. Undefined when the node does not show it anywhere.
 */
export function nodePathOf(
  from: readonly MountInfoEntry[],
  node: readonly MountInfoEntry[],
  file: string,
): string | undefined {
  const mount = mountOf(from, file);
  if (!mount) return undefined;
  const below = within(file, mount.mountPoint) ?? "/";
  const inFilesystem = below === "/" ? mount.root : posix.join(mount.root, below);
  for (const candidate of [...node].reverse()) {
    if (candidate.device !== mount.device) continue;
    const rest = within(inFilesystem, candidate.root);
    if (rest === undefined) continue;
    const nodePath = rest === "/" ? candidate.mountPoint : posix.join(candidate.mountPoint, rest);
    // The node's view of that path must end on this very mount, not on one stacked over it.
    if (mountOf(node, nodePath) === candidate) return nodePath;
  }
  return undefined;
}

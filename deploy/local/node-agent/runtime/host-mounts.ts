import { mountsUnder, readMountInfo } from "./mountinfo.js";
import type { MountEntry } from "./mountinfo.js";
import type { RunCommand } from "./exec.js";

// Mounts the node agent makes on the node itself: the node root as a shared mount (what systemd makes of
// "/" on a kubelet node, so that volumes can propagate mounts into containers), the runtime directory as a
// private one (containers' root mounts there must never propagate anywhere, whatever "/" is), and the
// removal of everything mounted below a directory before it is deleted.

const MAX_UNMOUNT_ROUNDS = 8;

export type MountInfoReader = () => Promise<MountEntry[]>;

/**
 * Makes `dir` a mount point (a bind onto itself) with the given propagation, below it included. Returns
 * false, changing nothing, when `dir` is no mount point but mounts below it exist: binding over them
 * would stack copies that teardown cannot reach (an agent upgraded on a running node; set it up afresh).
 */
export async function ensurePropagation(
  dir: string,
  propagation: "shared" | "private",
  run: RunCommand,
  read: MountInfoReader = () => readMountInfo(),
): Promise<boolean> {
  const below = mountsUnder(await read(), dir);
  if (!below.includes(dir)) {
    if (below.length > 0) return false;
    await run("mount", ["--bind", dir, dir]);
  }
  await run("mount", [propagation === "shared" ? "--make-rshared" : "--make-private", dir]);
  return true;
}

/** Unmounts every mount at or below `dir`, deepest first, including mounts stacked on one another. */
export async function unmountAllUnder(
  dir: string,
  run: RunCommand,
  read: MountInfoReader = () => readMountInfo(),
): Promise<void> {
  let left = mountsUnder(await read(), dir);
  for (let round = 0; left.length > 0 && round < MAX_UNMOUNT_ROUNDS; round++) {
    // A shared mount stays busy while a peer in another mount namespace (a container's copy) holds
    // something below it; after the plain rounds, detach it lazily: it leaves this namespace at once.
    const lazy = round >= MAX_UNMOUNT_ROUNDS / 2 ? ["--lazy"] : [];
    for (const point of left) await run("umount", [...lazy, point]).catch(() => undefined);
    left = mountsUnder(await read(), dir);
  }
  if (left.length > 0) throw new Error(`mounts still present under ${dir}: ${left.join(", ")}`);
}

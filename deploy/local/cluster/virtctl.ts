// Puts `virtctl` and the kubectl plugin `kubectl-virt` beside the cluster's kubectl, so that with that
// directory on PATH both `virtctl console demo` and `kubectl virt console demo` work as upstream's do.
import { readlink, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { Layout } from "./layout.js";

export const VIRTCTL_NAMES = ["virtctl", "kubectl-virt"] as const;

export async function linkVirtctl(l: Layout): Promise<void> {
  const target = join(l.repoRoot, "bin/virtctl.js");
  for (const name of VIRTCTL_NAMES) {
    const link = join(l.binDir, name);
    if ((await readlink(link).catch(() => undefined)) === target) continue;
    await rm(link, { force: true });
    await symlink(target, link);
  }
}

// A launcher pod's root as the image lays it out: /var/run is an absolute symlink to /run, so a path built
// by joining strings below /proc/<pid>/root would leave the pod (the kernel resolves "/run" against the
// caller's root).
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function fakeLauncherPodRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "pod-root-"));
  mkdirSync(join(root, "run"));
  mkdirSync(join(root, "var"));
  symlinkSync("/run", join(root, "var/run"));
  return root;
}

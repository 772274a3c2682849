// Mounts under a folder (the state folder): listed from the kernel's mount table, so `down`
// finds every bind mount a node agent left on the host, even after a crash.
import { readFile } from "node:fs/promises";
import { runCommand } from "./run-command.js";

/** Mount points at or below `dir`, deepest first (the order they can be unmounted in). */
export async function mountsUnder(dir: string, mountinfo?: string): Promise<string[]> {
  const table = mountinfo ?? (await readFile("/proc/self/mountinfo", "utf8"));
  const points = table
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((point): point is string => point !== undefined)
    .map(unescapeMountPoint)
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

export async function unmountAllUnder(dir: string): Promise<void> {
  for (const point of await mountsUnder(dir)) {
    // lazy unmount as the fallback: a busy mount must not stop `down` from finishing
    if ((await runCommand("umount", [point])).code !== 0) await runCommand("umount", ["-l", point]);
  }
}

/** The mount table writes space, tab, newline and backslash as octal escapes. */
function unescapeMountPoint(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

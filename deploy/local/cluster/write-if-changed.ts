// Rewriting a file some running process watches (kube-proxy exits when its config file changes)
// must not happen when `up` runs again with the same content.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";

/** Writes `content` unless the file already holds exactly that; true when it wrote. */
export async function writeIfChanged(path: string, content: string, mode?: number): Promise<boolean> {
  if (existsSync(path) && (await readFile(path, "utf8")) === content) return false;
  await writeFile(path, content, mode === undefined ? {} : { mode });
  return true;
}

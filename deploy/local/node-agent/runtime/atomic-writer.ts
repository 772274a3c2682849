import { randomBytes } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import type { VolumeFile } from "../pod-runtime.js";
import { secureJoin } from "./path-resolver.js";

// kubelet's AtomicWriter for configMap/secret/downwardAPI/projected volumes. Containers bind-mount the
// volume directory itself, so it must never be removed or emptied: the files live in a timestamped
// directory, `..data` points at the current one and each top-level name is a link through `..data`.
// A refresh writes a new directory and swaps `..data` with one rename, so a reader sees the old set
// or the new set, never a missing ca.crt.

const DATA_LINK = "..data";
const TMP_LINK = "..data_tmp";

const topLevelNames = (files: readonly VolumeFile[]): Set<string> =>
  new Set(files.map((file) => path.normalize(file.path).split(path.sep)[0] ?? ""));

async function currentFilesEqual(dir: string, files: readonly VolumeFile[]): Promise<boolean> {
  const current = await readlink(path.join(dir, DATA_LINK)).catch(() => undefined);
  if (!current) return false;
  for (const file of files) {
    const target = await secureJoin(path.join(dir, current), file.path);
    const stats = await lstat(target).catch(() => undefined);
    if (!stats?.isFile() || (stats.mode & 0o7777) !== file.mode) return false;
    const content = await readFile(target);
    if (!content.equals(file.content)) return false;
  }
  const names = await readdir(path.join(dir, current));
  return names.length === topLevelNames(files).size;
}

/** Makes `dir` hold exactly `files`, atomically for readers; a no-op when nothing changed. */
export async function writeVolumeFiles(dir: string, files: readonly VolumeFile[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (await currentFilesEqual(dir, files)) return;
  const stamp = `..${new Date().toISOString().replace(/[-:.]/g, "_")}.${randomBytes(4).toString("hex")}`;
  const payload = path.join(dir, stamp);
  await mkdir(payload, { mode: 0o755 });
  for (const file of files) {
    const target = await secureJoin(payload, file.path);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, file.content);
    await chmod(target, file.mode);
  }
  const previous = await readlink(path.join(dir, DATA_LINK)).catch(() => undefined);
  await rm(path.join(dir, TMP_LINK), { force: true });
  await symlink(stamp, path.join(dir, TMP_LINK));
  await rename(path.join(dir, TMP_LINK), path.join(dir, DATA_LINK));

  const wanted = topLevelNames(files);
  for (const name of wanted) {
    const link = path.join(dir, name);
    const existing = await readlink(link).catch(() => undefined);
    if (existing === path.join(DATA_LINK, name)) continue;
    await rm(link, { recursive: true, force: true });
    await symlink(path.join(DATA_LINK, name), link);
  }
  for (const name of await readdir(dir)) {
    const stale = name.startsWith("..") ? name !== DATA_LINK && name !== stamp : !wanted.has(name);
    if (stale) await rm(path.join(dir, name), { recursive: true, force: true });
  }
  if (previous && previous !== stamp) await rm(path.join(dir, previous), { recursive: true, force: true });
}

// Exports a built image's root filesystem where the local node agent runs images from, with the image config's
// run fields beside it:
//   <cache>/images/components/<component>            a symlink to the current export, replaced atomically
//   <cache>/images/components/.exports/<component>-<image ID, 12 digits>/
//       rootfs/        the image's files (cp -a of the image: owners, modes, capabilities, device-free)
//       config.json    { image, imageID, created, config: { Entrypoint, Cmd, User, Env, WorkingDir } }
//       image-id       the stamp: the full image ID, written last
// An export is made beside its final name and renamed into place, then the symlink is switched by a rename, so a
// reader sees the old export or the new one, whole. Exports are never changed after that: a container that
// resolved the symlink (realpath) when it started keeps its files. Older exports are removed once the symlink
// no longer names them and no mount in any mount namespace (an overlay's lowerdir) names them.
import {
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import type { Buildah, ImageRunConfig, InspectedImage } from "./buildah.js";
import { overlayLowerDirs, parseMountInfo } from "../../deploy/local/node-agent/runtime/mountinfo.js";
import { exportIsCurrent } from "./stamp.js";

export const EXPORTS_DIR = ".exports";

/** The record written as config.json beside an export's rootfs. */
export interface ExportRecord {
  /** The name the image was built as, e.g. localhost/kubevirt-ts/virt-launcher:devel. */
  image: string;
  /** The image ID (hex digest of the image config). */
  imageID: string;
  created: string;
  config: ImageRunConfig;
}

export function exportRecord(image: string, inspected: InspectedImage): ExportRecord {
  return { image, imageID: inspected.id, created: inspected.created, config: inspected.config };
}

/** The folder name of an export: the component and the start of its image ID. */
export function exportName(component: string, imageID: string): string {
  return `${component}-${imageID.slice(0, 12)}`;
}

/**
 * The exports (folder names under .exports) of a component that may go: not the current one, and none whose path
 * a mount names (`mountSources`: every overlay lowerdir and bind source in any mount namespace).
 */
export function removableExports(
  component: string,
  entries: readonly string[],
  current: string | undefined,
  exportsDir: string,
  mountSources: readonly string[],
): string[] {
  const pattern = new RegExp(`^${component.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[0-9a-f]{12}$`);
  return entries.filter((entry) => {
    if (!pattern.test(entry) || entry === current) return false;
    const dir = path.join(exportsDir, entry);
    return !mountSources.some((source) => source === dir || source.startsWith(`${dir}/`));
  });
}

/** A name this module stages an export or a symlink under before renaming it into place. */
export function isStaging(entry: string): boolean {
  return /\.(tmp|old|link)-\d+$/.test(entry);
}

/**
 * The paths a mountinfo text names: each mount's root within its filesystem (a bind mount's source, as a path when
 * that filesystem is mounted at /), its mount point, and an overlay's lower directories.
 */
export function mountSourcesOf(mountinfo: string): string[] {
  return parseMountInfo(mountinfo).flatMap((entry) => [
    entry.mountPoint,
    ...(entry.root !== "/" ? [entry.root] : []),
    ...overlayLowerDirs(entry),
  ]);
}

/** Every mount source of every mount namespace of this machine (one mountinfo read per namespace). */
async function allMountSources(): Promise<string[]> {
  const seen = new Set<string>();
  const sources: string[] = [];
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const ns = await stat(`/proc/${pid}/ns/mnt`).catch(() => undefined);
    if (!ns || seen.has(`${ns.dev}:${ns.ino}`)) continue;
    seen.add(`${ns.dev}:${ns.ino}`);
    const text = await readFile(`/proc/${pid}/mountinfo`, "utf8").catch(() => "");
    sources.push(...mountSourcesOf(text));
  }
  return sources;
}

export interface ExportContext {
  buildah: Buildah;
  /** <cache>/images/components */
  componentsDir: string;
  log: (line: string) => void;
  force: boolean;
}

export type ExportOutcome = "exported" | "up to date";

/** Exports `image` (as inspected) for `component` unless the current export is of that image already. */
export async function exportImage(
  context: ExportContext,
  component: string,
  image: string,
  inspected: InspectedImage,
): Promise<ExportOutcome> {
  const { buildah, componentsDir, log } = context;
  const exportsDir = path.join(componentsDir, EXPORTS_DIR);
  const name = exportName(component, inspected.id);
  const dir = path.join(exportsDir, name);
  const record = JSON.stringify(exportRecord(image, inspected), null, 2) + "\n";
  const link = path.join(componentsDir, component);

  // what an interrupted run left (the caller holds the lock: nothing else stages here)
  for (const entry of await readdir(exportsDir).catch(() => [] as string[])) {
    if (isStaging(entry)) await rm(path.join(exportsDir, entry), { recursive: true, force: true });
  }
  for (const entry of await readdir(componentsDir).catch(() => [] as string[])) {
    if (isStaging(entry)) await rm(path.join(componentsDir, entry), { force: true });
  }

  const stamp = await readFile(path.join(dir, "image-id"), "utf8").catch(() => undefined);
  let outcome: ExportOutcome = "up to date";
  if (context.force || !exportIsCurrent(stamp, inspected.id)) {
    await mkdir(exportsDir, { recursive: true });
    const staging = `${dir}.tmp-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging);
    try {
      await copyRootfs(buildah, inspected.id, component, path.join(staging, "rootfs"));
      await writeFile(path.join(staging, "config.json"), record);
      await writeFile(path.join(staging, "image-id"), inspected.id + "\n");
      // a forced export replaces an export of the same image, unless a container runs from it
      const retired = `${dir}.old-${process.pid}`;
      const existing = await lstat(dir).catch(() => undefined);
      if (existing) {
        const sources = await allMountSources();
        if (sources.some((source) => source === dir || source.startsWith(`${dir}/`))) {
          throw new Error(`${dir} is mounted (a container runs from it): not exported again`);
        }
        await rename(dir, retired);
      }
      await rename(staging, dir);
      await rm(retired, { recursive: true, force: true });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    outcome = "exported";
  } else if ((await readFile(path.join(dir, "config.json"), "utf8").catch(() => "")) !== record) {
    // the same image under another name (--registry/--tag): only the record changes
    await writeFile(`${path.join(dir, "config.json")}.tmp-${process.pid}`, record);
    await rename(`${path.join(dir, "config.json")}.tmp-${process.pid}`, path.join(dir, "config.json"));
  }

  const target = path.join(EXPORTS_DIR, name);
  if ((await readlink(link).catch(() => undefined)) !== target) {
    const existing = await lstat(link).catch(() => undefined);
    if (existing && !existing.isSymbolicLink()) {
      throw new Error(`${link} is not the symlink this script keeps there; move it away`);
    }
    const staged = `${link}.link-${process.pid}`;
    await rm(staged, { force: true });
    await symlink(target, staged);
    await rename(staged, link);
    if (outcome === "up to date") log(`${component}: ${link} -> ${target}`);
  }

  const removable = removableExports(
    component,
    await readdir(exportsDir).catch(() => [] as string[]),
    name,
    exportsDir,
    await allMountSources(),
  );
  for (const entry of removable) {
    await rm(path.join(exportsDir, entry), { recursive: true, force: true });
    log(`${component}: removed the previous export ${entry}`);
  }
  return outcome;
}

/** Copies an image's files out of the storage: a working container of it, its root copied with cp -a, removed. */
async function copyRootfs(
  buildah: Buildah,
  imageID: string,
  component: string,
  target: string,
): Promise<void> {
  const container = await buildah.output([
    "from",
    "--pull=never",
    "--name",
    `kubevirt-ts-export-${component}-${process.pid}`,
    imageID,
  ]);
  try {
    await mkdir(target);
    await buildah.copyFiles(container, "out", target);
  } finally {
    await buildah.run(["rm", container]);
  }
}

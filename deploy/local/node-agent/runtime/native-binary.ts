import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

// Small C programs of this checkout that images carry as real binaries, because they run where no node
// exists (cmd/container-disk runs chrooted in a disk image holding nothing but the disk). Compiled once,
// statically, with the host's gcc (gcc + libc6-dev, installed by deploy/local/install-deps.sh) into the
// image cache, keyed by the source's hash; built beside the target and renamed, so two node agents
// building at once never run half a binary.

export interface NativeBinaryOptions {
  /** Where built binaries are kept, e.g. <cacheDir>/bin. */
  binDir: string;
  compiler?: string;
}

export class NativeBuildError extends Error {
  override readonly name = "NativeBuildError";
}

/** The files a C source is made of: itself and the local headers it includes (`#include "..."`), recursively. */
export async function sourceFiles(source: string, seen = new Set<string>()): Promise<string[]> {
  const file = path.resolve(source);
  if (seen.has(file)) return [];
  seen.add(file);
  const text = await readFile(file, "utf8");
  const included = [...text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) =>
    path.join(path.dirname(file), m[1]!),
  );
  const nested = [];
  for (const header of included) nested.push(...(await sourceFiles(header, seen)));
  return [file, ...nested];
}

/** The static binary built from `source` (a .c file), building it when the cache has none for its content. */
export async function ensureNativeBinary(source: string, options: NativeBinaryOptions): Promise<string> {
  const hash = createHash("sha256");
  for (const file of await sourceFiles(source))
    hash
      .update(file)
      .update("\0")
      .update(await readFile(file));
  const digest = hash.digest("hex").slice(0, 16);
  const name = path.basename(path.dirname(source));
  const target = path.join(options.binDir, `${name}-${digest}`);
  if ((await stat(target).catch(() => undefined))?.isFile()) return target;
  await mkdir(options.binDir, { recursive: true });
  const staging = `${target}.building-${process.pid}`;
  const compiler = options.compiler ?? "gcc";
  try {
    await promisify(execFile)(compiler, ["-static", "-Os", "-Wall", "-o", staging, source]);
  } catch (error) {
    await rm(staging, { force: true });
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new NativeBuildError(
      `building ${source} failed (${compiler} with static glibc: Debian packages gcc, libc6-dev): ${detail}`,
    );
  }
  await rename(staging, target);
  return target;
}

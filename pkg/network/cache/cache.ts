import { chown, lstat, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, relative, sep } from "node:path";
import type { z } from "zod";

// A JSON document in a file, validated on read (upstream pkg/network/cache.Cache). Writes go through
// a temporary file and a rename, so a reader never sees half a document.

export interface CacheFileOptions {
  /** Owner (uid and gid) of the file and of the directories created for it: the unprivileged
   * launcher reads what the privileged handler writes. */
  ownerId?: number | undefined;
  /** A root the file must stay under, such as a pod's `/proc/<pid>/root`: nothing between it and
   * the file, the file included, may be a symbolic link, so that the pod cannot redirect the
   * privileged handler. (A pod racing the check remains possible; upstream has the same exposure.) */
  confineTo?: string | undefined;
}

export class JsonCacheFile<T> {
  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
    private readonly options: CacheFileOptions = {},
  ) {}

  /** The document, or undefined when the file does not exist. */
  async read(): Promise<T | undefined> {
    await this.refuseSymlinks();
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return this.schema.parse(JSON.parse(text));
  }

  async write(document: T): Promise<void> {
    await this.refuseSymlinks();
    const created = await mkdir(dirname(this.path), { recursive: true, mode: 0o750 });
    await this.refuseSymlinks();
    const temporary = `${this.path}.tmp-${process.pid}`;
    // "wx" fails on an existing file or symlink; rename replaces a symlink rather than following it.
    await rm(temporary, { force: true });
    await writeFile(temporary, JSON.stringify(document, null, 2) + "\n", { mode: 0o644, flag: "wx" });
    const { ownerId } = this.options;
    if (ownerId !== undefined) {
      await chown(temporary, ownerId, ownerId);
      if (created !== undefined) await chownCreatedDirectories(created, dirname(this.path), ownerId);
    }
    await rename(temporary, this.path);
  }

  async delete(): Promise<void> {
    await this.refuseSymlinks();
    await rm(this.path, { force: true });
  }

  private async refuseSymlinks(): Promise<void> {
    const root = this.options.confineTo;
    if (root === undefined) return;
    const below = relative(root, this.path);
    if (below.startsWith("..")) throw new Error(`${this.path} is not under ${root}`);
    let current = root;
    for (const part of below.split(sep).filter((element) => element !== "")) {
      current = `${current}${sep}${part}`;
      const stats = await lstat(current).catch((error: unknown) =>
        isNotFound(error) ? undefined : Promise.reject(error),
      );
      if (!stats) return;
      if (stats.isSymbolicLink()) throw new Error(`refusing to follow the symbolic link ${current}`);
    }
  }
}

/** Directories from `firstCreated` down to `leaf`, which mkdir -p just made. */
async function chownCreatedDirectories(firstCreated: string, leaf: string, ownerId: number): Promise<void> {
  for (let directory = leaf; directory.startsWith(firstCreated); directory = dirname(directory)) {
    await chown(directory, ownerId, ownerId);
    if (directory === firstCreated) break;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

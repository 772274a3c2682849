import { mkdir, readFile, readdir, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { readMountInfo } from "./mountinfo.js";

// One cgroup v2 directory per container instance (no controllers enabled: it is used for bookkeeping).
// It holds every process the container starts, including ones that leave its process group or session,
// so "stop" can kill them all (cgroup.kill) and a test can see that nothing is left. Machines without a
// writable cgroup2 hierarchy fall back to process groups (see ContainerProcesses).

/** Where every node agent keeps its containers: `<cgroup2 mount>/kubevirt-ts/<node>/<pod uid>/...`. */
export const TREE_NAME = "kubevirt-ts";

export class CgroupTree {
  private constructor(readonly base: string) {}

  /** The tree under the machine's cgroup2 mount, or undefined when there is none we may write. */
  static async detect(): Promise<CgroupTree | undefined> {
    const mount = (await readMountInfo()).find((entry) => entry.fsType === "cgroup2");
    if (!mount) return undefined;
    const base = path.join(mount.mountPoint, TREE_NAME);
    try {
      await mkdir(base, { recursive: true });
      return new CgroupTree(base);
    } catch {
      return undefined;
    }
  }

  pathOf(parts: readonly string[]): string {
    return path.join(this.base, ...parts);
  }

  async create(parts: readonly string[]): Promise<string> {
    const dir = this.pathOf(parts);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  async join(dir: string, pid: number): Promise<void> {
    await writeFile(path.join(dir, "cgroup.procs"), `${pid}\n`);
  }

  async processes(dir: string): Promise<number[]> {
    const text = await readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => "");
    return text.split("\n").filter(Boolean).map(Number);
  }

  /** SIGKILLs everything in the cgroup and its children and waits until it is empty. */
  async killAll(dir: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.processes(dir)).length > 0 || (await this.hasPopulatedChildren(dir))) {
      try {
        await writeFile(path.join(dir, "cgroup.kill"), "1\n");
      } catch {
        // Kernels before 5.14 have no cgroup.kill: kill the members one by one.
        for (const pid of await this.processes(dir)) killQuietly(pid);
      }
      if (Date.now() > deadline) throw new Error(`processes are still running in ${dir}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Removes an empty cgroup and its (empty) children; harmless when already gone. */
  async remove(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
    if (!entries) return;
    for (const entry of entries) if (entry.isDirectory()) await this.remove(path.join(dir, entry.name));
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }

  /** Removes the runtime's top directory once no node uses it any more. */
  async pruneTree(): Promise<void> {
    await rmdir(this.base).catch((error: NodeJS.ErrnoException) => {
      if (!["ENOENT", "ENOTEMPTY", "EBUSY"].includes(error.code ?? "")) throw error;
    });
  }

  private async hasPopulatedChildren(dir: string): Promise<boolean> {
    const events = await readFile(path.join(dir, "cgroup.events"), "utf8").catch(() => "");
    return /^populated 1$/m.test(events);
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

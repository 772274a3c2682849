// A cgroup (v2) per started process tree, so that everything a process forks — a node agent's pod
// processes included, even when they start their own session — can be found and stopped by PID.
// Without a writable cgroup2 mount the cluster still works; only that sweep is skipped.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface ProcessTree {
  /** The cgroup folder; its `cgroup.procs` lists every member PID. */
  dir: string;
}

/** Where cgroup2 is mounted (a pure cgroup2 host or the `unified` part of a hybrid one). */
export async function cgroup2Mount(): Promise<string | undefined> {
  const mounts = await readFile("/proc/self/mounts", "utf8");
  for (const line of mounts.split("\n")) {
    const [, mountPoint, type, options] = line.split(" ");
    if (type === "cgroup2" && mountPoint && options?.split(",").includes("rw")) return mountPoint;
  }
  return undefined;
}

/** The cgroup folder for one named process of one checkout (two checkouts never share one). */
export async function processTree(stateDir: string, name: string): Promise<ProcessTree | undefined> {
  const mount = await cgroup2Mount();
  if (!mount) return undefined;
  const checkout = createHash("sha256").update(stateDir).digest("hex").slice(0, 8);
  return { dir: join(mount, `kubevirt-ts-${checkout}`, name) };
}

export async function createProcessTree(tree: ProcessTree): Promise<boolean> {
  try {
    await mkdir(tree.dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

export async function membersOf(tree: ProcessTree): Promise<number[]> {
  const procs = join(tree.dir, "cgroup.procs");
  if (!existsSync(procs)) return [];
  const text = await readFile(procs, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(Number);
}

/** SIGKILLs every member at once (cgroup.kill) or, on kernels without it, one PID at a time. */
export async function killMembers(tree: ProcessTree): Promise<void> {
  const killFile = join(tree.dir, "cgroup.kill");
  if (existsSync(killFile)) {
    await writeFile(killFile, "1");
    return;
  }
  for (const pid of await membersOf(tree)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Removes the cgroup folder and, when it is the last one, the checkout's parent folder. The kernel
 * keeps a cgroup busy for a moment after its last member exited, so a busy folder is retried briefly.
 */
export async function removeProcessTree(tree: ProcessTree): Promise<boolean> {
  if (!(await removeCgroupDir(tree.dir))) return false;
  await removeCgroupDir(join(tree.dir, ".."), 0); // busy while other trees of the checkout exist
  return true;
}

async function removeCgroupDir(dir: string, retryMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + retryMs;
  for (;;) {
    try {
      await rmdir(dir);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return true;
      if (code !== "EBUSY" || Date.now() >= deadline) return false;
      await sleep(100);
    }
  }
}

/** The `sh -c` script that moves itself into the cgroup and then becomes the real command. */
export const enterAndExecScript = 'echo $$ > "$0" && exec "$@"';

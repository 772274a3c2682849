import { readFile } from "node:fs/promises";
import path from "node:path";
import { hostFs, resolveInView } from "./path-resolver.js";
import type { FsProbe, ViewLayer } from "./path-resolver.js";

// What a container runs and as whom, decided as container runtimes do: the pod's command replaces the
// image's ENTRYPOINT (and drops its CMD), args alone replace the CMD; a bare name is looked up on the
// container's PATH inside its own root; a user without a group takes its group from the image's passwd.

export class ContainerStartError extends Error {
  override readonly name = "ContainerStartError";
}

export interface ImageCommand {
  entrypoint: readonly string[];
  cmd: readonly string[];
}

export function containerArgv(
  image: ImageCommand,
  command?: readonly string[],
  args?: readonly string[],
): string[] {
  const argv =
    command && command.length > 0
      ? [...command, ...(args ?? [])]
      : [...image.entrypoint, ...(args && args.length > 0 ? args : image.cmd)];
  if (argv.length === 0)
    throw new ContainerStartError("failed to generate container spec: no command specified");
  return argv;
}

/** The container path `argv0` runs, or a start error in runc's words when there is none. */
export async function findExecutable(
  layers: readonly ViewLayer[],
  argv0: string,
  options: { path: string; workingDir: string; provided: ReadonlySet<string> },
  probe: FsProbe = hostFs,
): Promise<string> {
  const isFile = async (candidate: string) =>
    options.provided.has(candidate) || (await resolveInView(layers, candidate, probe)).kind === "file";
  if (argv0.includes("/")) {
    const candidate = path.posix.resolve(options.workingDir, argv0);
    if (await isFile(candidate)) return candidate;
    throw new ContainerStartError(`exec: "${argv0}": stat ${argv0}: no such file or directory`);
  }
  for (const dir of options.path.split(":").filter((entry) => entry.startsWith("/"))) {
    const candidate = path.posix.join(dir, argv0);
    if (await isFile(candidate)) return candidate;
  }
  throw new ContainerStartError(`exec: "${argv0}": executable file not found in $PATH`);
}

/** The group of `uid` in a passwd file, if listed. */
export function primaryGroup(passwd: string, uid: number): number | undefined {
  for (const line of passwd.split("\n")) {
    const [, , id, gid] = line.split(":");
    if (
      id !== undefined &&
      gid !== undefined &&
      /^\d+$/.test(id) &&
      Number(id) === uid &&
      /^\d+$/.test(gid)
    ) {
      return Number(gid);
    }
  }
  return undefined;
}

/** uid/gid to run as: none (stay root) without runAsUser; else the group given, from passwd, or 0. */
export async function runAsIdentity(
  layers: readonly ViewLayer[],
  runAsUser: number | undefined,
  runAsGroup: number | undefined,
  probe: FsProbe = hostFs,
): Promise<{ uid: number; gid: number } | undefined> {
  if (runAsUser === undefined) return undefined;
  if (runAsGroup !== undefined) return { uid: runAsUser, gid: runAsGroup };
  const passwd = await resolveInView(layers, "/etc/passwd", probe);
  const text = passwd.kind === "file" && passwd.hostPath ? await readFile(passwd.hostPath, "utf8") : "";
  return { uid: runAsUser, gid: primaryGroup(text, runAsUser) ?? 0 };
}

/**
 * The added capabilities a non-root container keeps. Container runtimes leave a non-root process only
 * what file capabilities give it; upstream's launcher image sets cap_net_bind_service on its binaries so
 * the DHCP server binds port 67. Component images here run the host's node, which carries no file
 * capabilities, so the added ones are handed over as ambient capabilities instead: the same effect.
 */
export function ambientCapabilities(request: { capabilities?: { add: string[] } }): string[] {
  return (request.capabilities?.add ?? [])
    .map((name) => name.toLowerCase().replace(/^cap_/, ""))
    .filter((name) => /^[a-z_]+$/.test(name) && name !== "all");
}

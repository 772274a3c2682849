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

async function imageFile(layers: readonly ViewLayer[], file: string, probe: FsProbe): Promise<string> {
  const found = await resolveInView(layers, file, probe);
  return found.kind === "file" && found.hostPath ? await readFile(found.hostPath, "utf8") : "";
}

/** The id of `name` (a number, or an entry's name) in a passwd or group file's text. */
function idOf(text: string, name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  const fields = text
    .split("\n")
    .map((line) => line.split(":"))
    .find((entry) => entry[0] === name);
  return fields?.[2] !== undefined && /^\d+$/.test(fields[2]) ? Number(fields[2]) : undefined;
}

/**
 * uid/gid to run as: the pod's runAsUser (its group given, else from the image's passwd, else 0); without one,
 * the image's USER (`user[:group]`, names looked up in the image's passwd and group files, as containerd does);
 * none (stay root) when neither says.
 */
export async function runAsIdentity(
  layers: readonly ViewLayer[],
  runAsUser: number | undefined,
  runAsGroup: number | undefined,
  imageUser = "",
  probe: FsProbe = hostFs,
): Promise<{ uid: number; gid: number } | undefined> {
  if (runAsUser === undefined && imageUser === "") return undefined;
  const passwd = await imageFile(layers, "/etc/passwd", probe);
  let uid = runAsUser;
  let group = runAsGroup;
  if (uid === undefined) {
    const [user = "", groupName] = imageUser.split(":");
    uid = idOf(passwd, user);
    if (uid === undefined)
      throw new ContainerStartError(`unable to find user ${user}: no matching entries in passwd file`);
    if (groupName !== undefined && group === undefined) {
      group = idOf(await imageFile(layers, "/etc/group", probe), groupName);
      if (group === undefined) {
        throw new ContainerStartError(`unable to find group ${groupName}: no matching entries in group file`);
      }
    }
  }
  return { uid, gid: group ?? primaryGroup(passwd, uid) ?? 0 };
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

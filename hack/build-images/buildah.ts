// Debian's buildah, run against this suite's own image storage: the overlay driver in a folder of the cache, so
// nothing under /var/lib/containers is touched (vfs, which needs no overlay mount, copies the whole root for every
// layer: 10-40 s a step here, against about a second); builds isolate with chroot (no OCI
// runtime, no daemon), never pull (every base is local) and keep a layer cache. The pure parts (arguments,
// reading buildah's answers) are exported for the tests.
import { spawn } from "node:child_process";

export interface StoragePaths {
  /** containers/storage's graph root: images, layers, containers. */
  root: string;
  /** Its run root: locks and mount bookkeeping. */
  runroot: string;
}

export const STORAGE_DRIVER = "overlay";

/** buildah's global options for our storage; they go before the subcommand. */
export function storageArgs(paths: StoragePaths): string[] {
  return ["--root", paths.root, "--runroot", paths.runroot, "--storage-driver", STORAGE_DRIVER];
}

/**
 * The command line that runs buildah with `args` on our storage: in a mount namespace of its own where /var/lib is
 * read-only. Running as root, buildah's image library keeps a blob info cache in /var/lib/containers/cache, which
 * no option moves; unable to create it, the library keeps that cache in memory, so the machine's /var/lib stays as
 * it is. The overlay mounts buildah makes live in that namespace too, gone with it: see copyFilesCommand.
 */
export function buildahCommand(
  binary: string,
  paths: StoragePaths,
  args: readonly string[],
): [string, string[]] {
  return inPrivateMountNamespace(`${READ_ONLY_VAR_LIB} && exec "$@"`, [
    binary,
    ...storageArgs(paths),
    ...args,
  ]);
}

const READ_ONLY_VAR_LIB = "mount --bind /var/lib /var/lib && mount -o remount,bind,ro /var/lib";

function inPrivateMountNamespace(script: string, args: readonly string[]): [string, string[]] {
  return ["unshare", ["--mount", "--propagation", "private", "--", "sh", "-c", script, "buildah", ...args]];
}

/** Which way copyFilesCommand copies: out of a working container into a folder, or into it from one. */
export type CopyDirection = "out" | "in";

/**
 * The command line that copies a working container's whole root out to `dir` (or `dir`'s files into it) with
 * `cp -a` (owners, modes, links, capabilities): buildah mounts the container, the copy runs, buildah unmounts it,
 * all in one private mount namespace, since an overlay mount exists only in the namespace that made it.
 */
export function copyFilesCommand(
  binary: string,
  paths: StoragePaths,
  container: string,
  direction: CopyDirection,
  dir: string,
): [string, string[]] {
  const script = [
    "set -e",
    READ_ONLY_VAR_LIB,
    "direction=$1 container=$2 dir=$3; shift 3",
    'mountpoint=$("$@" mount "$container")',
    "status=0",
    'if [ "$direction" = out ]; then cp -a "$mountpoint/." "$dir/" || status=$?; else cp -a "$dir/." "$mountpoint/" || status=$?; fi',
    '"$@" umount "$container" >/dev/null',
    'exit "$status"',
  ].join("\n");
  return inPrivateMountNamespace(script, [direction, container, dir, binary, ...storageArgs(paths)]);
}

export interface BuildSpec {
  dockerfile: string;
  context: string;
  /** The name the image is tagged with. */
  image: string;
  buildArgs: Readonly<Record<string, string>>;
  /** `--secret id=<id>,src=<file>`: files RUN --mount=type=secret steps see, kept out of every layer. */
  secrets: ReadonlyArray<{ id: string; src: string }>;
  /** Build every step again. */
  noCache?: boolean;
}

/** The `buildah build` subcommand and its arguments for a spec. */
export function buildArgs(spec: BuildSpec): string[] {
  return [
    "build",
    "--isolation",
    "chroot",
    "--pull=never",
    "--layers",
    ...(spec.noCache ? ["--no-cache"] : []),
    "-f",
    spec.dockerfile,
    "-t",
    spec.image,
    ...Object.keys(spec.buildArgs)
      .sort()
      .flatMap((name) => ["--build-arg", `${name}=${spec.buildArgs[name]}`]),
    ...spec.secrets.flatMap((secret) => ["--secret", `id=${secret.id},src=${secret.src}`]),
    spec.context,
  ];
}

/** What a container started from an image gets: the fields of the OCI image config a runtime uses. */
export interface ImageRunConfig {
  Entrypoint: string[];
  Cmd: string[];
  User: string;
  Env: string[];
  /** "" means "/". */
  WorkingDir: string;
}

export interface InspectedImage {
  /** The image ID: the hex digest of its config. */
  id: string;
  created: string;
  config: ImageRunConfig;
}

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new Error(`buildah inspect: config.${field} is not a list of strings`);
  }
  return value;
}

function text(value: unknown, field: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new Error(`buildah inspect: config.${field} is not a string`);
  return value;
}

/** Reads `buildah inspect --type image` output: the image ID and its OCI config's run fields. */
export function parseImageInspect(output: string): InspectedImage {
  let document: unknown;
  try {
    document = JSON.parse(output);
  } catch (error) {
    throw new Error(`buildah inspect printed no JSON: ${(error as Error).message}`);
  }
  const record = (document ?? {}) as Record<string, unknown>;
  const id = record["FromImageID"];
  if (typeof id !== "string" || !/^[0-9a-f]{64}$/.test(id))
    throw new Error("buildah inspect: no FromImageID");
  const oci = (record["OCIv1"] ?? {}) as Record<string, unknown>;
  const config = (oci["config"] ?? {}) as Record<string, unknown>;
  return {
    id,
    created: text(oci["created"], "created"),
    config: {
      Entrypoint: strings(config["Entrypoint"], "Entrypoint"),
      Cmd: strings(config["Cmd"], "Cmd"),
      User: text(config["User"], "User"),
      Env: strings(config["Env"], "Env"),
      WorkingDir: text(config["WorkingDir"], "WorkingDir"),
    },
  };
}

/**
 * The images a `buildah build --layers` run made or took from its cache, one per step, as its output names them
 * (`--> Using cache <id>`, `--> <short id>`, the final ID alone on the last line): what must stay for the next
 * run to hit the cache. Short IDs are prefixes of the full ones.
 */
export function stepImageIds(output: string): string[] {
  const ids = new Set<string>();
  for (const line of output.split("\n")) {
    const match =
      /^--> (?:Using cache )?([0-9a-f]{11,64})\s*$/.exec(line.trim()) ?? /^([0-9a-f]{64})$/.exec(line.trim());
    if (match?.[1]) ids.add(match[1]);
  }
  return [...ids];
}

/** The instruction of the step that failed, from buildah's `Error: building at STEP "<instruction>": <reason>`. */
export function failedStep(output: string): { instruction: string; reason: string } | undefined {
  const lines = output.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /building at STEP "(.*)": (.*)$/.exec(lines[i] ?? "");
    if (match?.[1] !== undefined && match[2] !== undefined)
      return { instruction: match[1], reason: match[2] };
  }
  return undefined;
}

/**
 * The 1-based line of a Dockerfile where an instruction as buildah prints it starts: buildah joins continuation
 * lines (dropping the backslashes) and may cut long instructions, so the lines are compared with whitespace runs
 * squeezed, on the common prefix. Undefined when no line matches.
 */
export function locateInstruction(dockerfile: string, instruction: string): number | undefined {
  const squeeze = (text: string) => text.replace(/\s+/g, " ").trim();
  const wanted = squeeze(instruction);
  if (wanted === "") return undefined;
  const lines = dockerfile.split("\n");
  let best: { line: number; length: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^\s*(#|$)/.test(line)) continue;
    // the instruction with its continuation lines
    let joined = line;
    for (let j = i; /\\\s*$/.test(lines[j] ?? "") && j + 1 < lines.length; j++) {
      joined = joined.replace(/\\\s*$/, " ") + (lines[j + 1] ?? "");
    }
    const candidate = squeeze(joined);
    const length = Math.min(candidate.length, wanted.length);
    if (
      length > 0 &&
      candidate.slice(0, length) === wanted.slice(0, length) &&
      length > (best?.length ?? 0)
    ) {
      best = { line: i + 1, length };
    }
  }
  return best?.line;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface BuildahOptions {
  paths: StoragePaths;
  /** The environment buildah runs with (TMPDIR set to a folder of the cache). */
  env: NodeJS.ProcessEnv;
  binary?: string;
}

export class BuildahError extends Error {
  override readonly name = "BuildahError";
  constructor(
    readonly args: readonly string[],
    readonly result: RunResult,
  ) {
    super(
      `buildah ${args.join(" ")} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`,
    );
  }
}

export class Buildah {
  readonly binary: string;

  constructor(private readonly options: BuildahOptions) {
    this.binary = options.binary ?? "buildah";
  }

  /** Runs buildah; with `echo`, its output goes to ours as it comes (and is still returned). */
  run(args: readonly string[], echo = false): Promise<RunResult> {
    return this.spawn(buildahCommand(this.binary, this.options.paths, args), echo);
  }

  /** Copies a working container's root out to `dir`, or `dir`'s files into it; throws when that fails. */
  async copyFiles(container: string, direction: CopyDirection, dir: string): Promise<void> {
    const result = await this.spawn(
      copyFilesCommand(this.binary, this.options.paths, container, direction, dir),
      false,
    );
    if (result.code !== 0) throw new BuildahError(["mount", container, `(copy ${direction} ${dir})`], result);
  }

  private spawn([command, argv]: [string, string[]], echo: boolean): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, argv, {
        env: this.options.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => {
        stdout.push(chunk);
        if (echo) process.stdout.write(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr.push(chunk);
        if (echo) process.stderr.write(chunk);
      });
      child.once("error", reject);
      child.once("close", (code, signal) =>
        resolve({
          code: code ?? (signal ? 128 : 1),
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
        }),
      );
    });
  }

  /** Runs buildah and returns its stdout, trimmed; throws BuildahError when it fails. */
  async output(args: readonly string[]): Promise<string> {
    const result = await this.run(args);
    if (result.code !== 0) throw new BuildahError(args, result);
    return result.stdout.trim();
  }

  /** The image a name or ID names; undefined when the storage has none. */
  async inspectImage(image: string): Promise<InspectedImage | undefined> {
    const result = await this.run(["inspect", "--type", "image", image]);
    if (result.code !== 0) {
      if (/image not known|not found|no such image|unable to find/i.test(result.stderr)) return undefined;
      throw new BuildahError(["inspect", "--type", "image", image], result);
    }
    return parseImageInspect(result.stdout);
  }
}

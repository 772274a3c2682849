// Builds the component images (Dockerfile.<component> at the checkout's root) with Debian's buildah, locally, and
// exports each image's root filesystem for the local node agent; `make images` runs it.
//   npx tsx hack/build-images/main.ts [--registry R] [--tag T | --version-tag] [--no-export] [--no-prune]
//                                     [--build-ca FILE] [--force] [component...]
// The Dockerfiles take their base images as build arguments; here both are the local Debian bookworm + Node base
// (base-image.ts), since this machine pulls nothing. buildah keeps its own storage under
// ${XDG_CACHE_HOME:-~/.cache}/kubevirt-ts/buildah (overlay driver, chroot isolation, --pull=never, --layers; see
// buildah.ts). An image whose inputs (Dockerfile, build arguments, base image, the build context: context.ts) are
// those of its last build is not handed to buildah again, and an export of the same image is kept (export.ts), so
// a second run with nothing changed takes seconds. The images of earlier builds nothing uses any more are removed.
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultCacheDir } from "../../deploy/local/node-agent/runtime/image-store.js";
import { get as buildVersion } from "../../pkg/version/version.js";
import { ensureNodeBase } from "./base-image.js";
import {
  Buildah,
  BuildahError,
  STORAGE_DRIVER,
  buildArgs,
  failedStep,
  locateInstruction,
  stepImageIds,
  type InspectedImage,
} from "./buildah.js";
import { contextEntries, imageInputsHash, parseDockerignore } from "./context.js";
import { exportImage, type ExportOutcome } from "./export.js";
import {
  COMPONENTS,
  USAGE,
  UsageError,
  imageName,
  parseOptions,
  versionTag,
  type Options,
} from "./options.js";
import { imageIsCurrent, imageStampFileName, parseImageStampFile, type ImageStampFile } from "./stamp.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const started = Date.now();
const say = (line: string): void =>
  console.log(`[images +${Math.round((Date.now() - started) / 1000)}s] ${line}`);
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)}s`;

class BuildFailed extends Error {
  override readonly name = "BuildFailed";
}

interface Built {
  component: string;
  image: string;
  inspected: InspectedImage;
  /** How long buildah took; undefined when the image was current and buildah was not called. */
  buildTime?: string;
  exported?: ExportOutcome;
  exportTime?: string;
}

async function main(options: Options): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "building images needs root (buildah with chroot isolation, overlay mounts): sudo make images",
    );
  }
  const cacheDir = defaultCacheDir();
  const buildahDir = path.join(cacheDir, "buildah");
  const tmp = path.join(buildahDir, "tmp");
  await mkdir(tmp, { recursive: true });
  const buildah = new Buildah({
    paths: {
      root: path.join(buildahDir, `storage-${STORAGE_DRIVER}`),
      runroot: path.join(buildahDir, "run"),
    },
    // buildah's big temporary files (layer diffs) go to the cache's disk, not /var/tmp
    env: { ...process.env, TMPDIR: tmp },
  });
  let buildahVersion: string;
  try {
    buildahVersion = await buildah.output(["--version"]);
  } catch (error) {
    throw new Error(
      error instanceof BuildahError && error.result.code === 127
        ? "buildah is missing: bash deploy/local/install-deps.sh (Debian packages buildah, debootstrap)"
        : (error as Error).message,
    );
  }
  const stampsDir = path.join(buildahDir, "stamps");
  await mkdir(stampsDir, { recursive: true });

  const release = await lock(path.join(buildahDir, "build-images.lock"));
  try {
    // working containers an interrupted run left (this storage is ours alone, and the lock is held)
    await buildah.run(["rm", "--all"]);
    const base = await ensureNodeBase({ buildah, dir: buildahDir, log: say, force: options.force });
    const version = buildVersion();
    const tag = options.tag ?? versionTag(version.gitVersion);
    const { gitVersion, gitCommit, gitTreeState, buildDate } = version;
    const args: Record<string, string> = {
      NODE_IMAGE: base.image,
      NODE_BUILD_IMAGE: base.image,
      // as hack/version.ts prints it
      KUBEVIRT_TS_VERSION: JSON.stringify({ gitVersion, gitCommit, gitTreeState, buildDate }, null, 2),
    };
    const secrets =
      options.buildCa && existsSync(options.buildCa) ? [{ id: "build-ca", src: options.buildCa }] : [];
    say(
      `building ${options.components.join(", ")} as ${imageName(options.registry, "<component>", tag)} ` +
        `(version ${version.gitVersion}) on ${base.image}` +
        (secrets.length > 0 ? `; npm in the build stage trusts ${options.buildCa}` : ""),
    );

    const context = await contextEntries(
      ROOT,
      parseDockerignore(await readFile(path.join(ROOT, ".dockerignore"), "utf8").catch(() => "")),
    );
    const built: Built[] = [];
    const steps = new Set<string>();
    for (const component of options.components) {
      const image = imageName(options.registry, component, tag);
      const dockerfile = `Dockerfile.${component}`;
      const dockerfileText = await readFile(path.join(ROOT, dockerfile), "utf8");
      const inputs = imageInputsHash({
        dockerfile: dockerfileText,
        buildArgs: args,
        baseImageID: base.imageID,
        context,
        buildah: buildahVersion,
      });
      const stampPath = path.join(stampsDir, imageStampFileName(image));
      const stamp = parseImageStampFile(await readFile(stampPath, "utf8").catch(() => undefined));
      const stored = await buildah.inspectImage(image);
      let entry: Built;
      if (!options.force && stored && imageIsCurrent(stamp, inputs, image, stored.id)) {
        // built from these very inputs: buildah would take every step from its cache, after walking the context
        for (const id of stamp?.steps ?? []) steps.add(id);
        entry = { component, image, inspected: stored };
        say(`${image}: up to date (${stored.id.slice(0, 12)})`);
      } else {
        const made = await build(
          buildah,
          component,
          image,
          dockerfile,
          dockerfileText,
          args,
          secrets,
          options.force,
        );
        const record: ImageStampFile = { inputs, image, imageID: made.inspected.id, steps: made.steps };
        await writeFile(`${stampPath}.tmp`, JSON.stringify(record, null, 2) + "\n");
        await rename(`${stampPath}.tmp`, stampPath);
        for (const id of made.steps) steps.add(id);
        entry = { component, image, inspected: made.inspected, buildTime: made.buildTime };
      }
      if (options.export) {
        const exportSince = Date.now();
        entry.exported = await exportImage(
          {
            buildah,
            componentsDir: path.join(cacheDir, "images", "components"),
            log: say,
            force: options.force,
          },
          component,
          image,
          entry.inspected,
        );
        entry.exportTime = seconds(exportSince);
        say(`${component}: rootfs ${entry.exported} (${entry.exportTime})`);
      }
      built.push(entry);
    }

    if (options.prune && options.components.length === COMPONENTS.length) {
      steps.add(base.imageID);
      for (const entry of built) steps.add(entry.inspected.id);
      await prune(buildah, steps);
    }

    const components = path.join(cacheDir, "images", "components");
    for (const entry of built) {
      const how = entry.buildTime ? `built in ${entry.buildTime}` : "up to date";
      const exported = entry.exported
        ? `; rootfs ${entry.exported} (${entry.exportTime}): ${path.join(components, entry.component)}/rootfs`
        : "";
      say(`${entry.image} ${entry.inspected.id.slice(0, 12)} ${how}${exported}`);
    }
    say("done");
  } finally {
    await release();
  }
}

/** Builds one image with buildah, its output going to ours; a failure names the Dockerfile line. */
async function build(
  buildah: Buildah,
  component: string,
  image: string,
  dockerfile: string,
  dockerfileText: string,
  args: Readonly<Record<string, string>>,
  secrets: ReadonlyArray<{ id: string; src: string }>,
  noCache: boolean,
): Promise<Built & { steps: string[] }> {
  const since = Date.now();
  say(`${image}: buildah build -f ${dockerfile}`);
  const result = await buildah.run(
    buildArgs({
      dockerfile: path.join(ROOT, dockerfile),
      context: ROOT,
      image,
      buildArgs: args,
      secrets,
      noCache,
    }),
    true,
  );
  if (result.code !== 0) {
    const step = failedStep(result.stderr + result.stdout);
    const line = step && locateInstruction(dockerfileText, step.instruction);
    throw new BuildFailed(
      `${image}: buildah build failed (exit ${result.code})` +
        (step
          ? ` at ${dockerfile}${line ? `:${line}` : ""}: ${step.instruction.replace(/\s+/g, " ").slice(0, 200)}\n  ${step.reason}`
          : `: ${lastLine(result.stderr)}`),
    );
  }
  const inspected = await buildah.inspectImage(image);
  if (!inspected) throw new Error(`buildah built ${image} but does not find it`);
  const buildTime = seconds(since);
  say(`${image}: ${inspected.id.slice(0, 12)} (${buildTime})`);
  return { component, image, inspected, buildTime, steps: stepImageIds(result.stdout) };
}

function lastLine(text: string): string {
  return text.trim().split("\n").pop() ?? "";
}

/**
 * Removes the images no tag names and the last builds did not use (older builds' steps, an older base): every
 * change leaves a few layers behind (the bundles, a build stage with its sources), which would fill the disk over
 * time. Tagged images stay.
 */
async function prune(buildah: Buildah, keep: ReadonlySet<string>): Promise<void> {
  const listed = JSON.parse(
    (await buildah.output(["images", "--all", "--json", "--no-trunc"])) || "[]",
  ) as Array<{
    id?: string;
    names?: string[] | null;
  }>;
  const kept = [...keep];
  const stale = listed
    .map((image) => ({ id: (image.id ?? "").replace(/^sha256:/, ""), names: image.names ?? [] }))
    .filter((image) => image.id !== "" && image.names.length === 0)
    .filter((image) => !kept.some((id) => image.id.startsWith(id)))
    .map((image) => image.id);
  if (stale.length === 0) return;
  const since = Date.now();
  say(`removing ${stale.length} image(s) earlier builds left, unused now`);
  const result = await buildah.run(["rmi", ...stale]);
  say(
    `removed them (${seconds(since)})` +
      (result.code === 0 ? "" : `, but buildah rmi said: ${lastLine(result.stderr)}`),
  );
}

/** An exclusive lock on the storage and the exports, held by this process; a stale one (dead PID) is taken over. */
async function lock(file: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number((await readFile(file, "utf8").catch(() => "")).trim());
      if (pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(`another hack/build-images (pid ${pid}) is building; ${file} is its lock`);
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`cannot take the lock ${file}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

let options: Options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
} else {
  try {
    await main(options);
  } catch (error) {
    say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

// The local base image of the component images: a Debian bookworm root filesystem made with debootstrap (the
// minbase variant, from deb.debian.org) plus this machine's Node.js (the files of the installed Debian package
// `nodejs`), committed into our buildah storage as localhost/kubevirt-ts/node-base:<node major>-bookworm. It
// stands in for both official images the Dockerfiles name (node:<major>-bookworm-slim for what ships,
// node:<major>-bookworm for the build stages), which this machine cannot pull; it is never tagged as either. Its
// packages are brought up to date from bookworm-updates and bookworm-security, as Debian's images are.
//
// Cached: a stamp file holds the hash of the recipe (this file's text) and of the node it copied (node's version,
// the package's, npm's); the image is built again only when that changes or the storage lost it.
import { execFile, spawn } from "node:child_process";
import { lstat, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Buildah } from "./buildah.js";
import { baseIsCurrent, baseStamp, parseBaseStampFile, type BaseInputs } from "./stamp.js";

const run = promisify(execFile);

export const NODE_BASE_REPOSITORY = "localhost/kubevirt-ts/node-base";
const SUITE = "bookworm";
const MIRROR = "http://deb.debian.org/debian";
/** What debian:bookworm's images carry: the release, its updates and its security archive. */
const SOURCES = `Types: deb
URIs: ${MIRROR}
Suites: ${SUITE} ${SUITE}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: ${SUITE}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;
/** Where Debian's package `nodejs` installs npm; a machine may have updated it in place (npm install -g npm). */
const NPM_DIR = "/usr/lib/node_modules/npm";
const NODE = "/usr/bin/node";
const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function nodeBaseImage(nodeVersion: string): string {
  const major = /^v?(\d+)\./.exec(nodeVersion)?.[1];
  if (!major) throw new Error(`cannot read a major version from node ${JSON.stringify(nodeVersion)}`);
  return `${NODE_BASE_REPOSITORY}:${major}-${SUITE}`;
}

/**
 * The paths to copy for the node package from `dpkg -L nodejs`, relative to /: every listed path but the root and
 * npm's files (npm goes whole, as installed: see NPM_DIR), directories included so their modes come along.
 */
export function nodePackagePaths(dpkgList: string): string[] {
  return dpkgList
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("/") && line !== "/." && line !== "/")
    .filter((line) => line !== NPM_DIR && !line.startsWith(`${NPM_DIR}/`))
    .map((line) => line.slice(1));
}

async function hostNode(): Promise<BaseInputs & { files: string[] }> {
  let packageVersion: string;
  let list: string;
  try {
    packageVersion = (await run("dpkg-query", ["-W", "-f=${Version}", "nodejs"])).stdout.trim();
    list = (await run("dpkg", ["-L", "nodejs"], { maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch {
    throw new Error(
      "the Debian package nodejs is not installed: the local base image copies its node from it",
    );
  }
  const nodeVersion = (await run(NODE, ["--version"])).stdout.trim();
  const npm = JSON.parse(await readFile(path.join(NPM_DIR, "package.json"), "utf8")) as { version?: string };
  const recipe = await readFile(fileURLToPath(import.meta.url), "utf8");
  // paths dpkg lists that the machine no longer has are left out (tar would stop on them)
  const listed = nodePackagePaths(list);
  const present = await Promise.all(
    listed.map((file) =>
      lstat(`/${file}`).then(
        () => true,
        () => false,
      ),
    ),
  );
  return {
    recipe,
    nodeVersion,
    nodePackageVersion: packageVersion,
    npmVersion: npm.version ?? "unknown",
    files: listed.filter((_, i) => present[i]),
  };
}

export interface BaseImageContext {
  buildah: Buildah;
  /** Our buildah folder of the cache: the stamp file and scratch space go here. */
  dir: string;
  log: (line: string) => void;
  force: boolean;
}

export interface BaseImage {
  image: string;
  imageID: string;
  built: boolean;
}

/** The local base image, built when missing or when its inputs changed. */
export async function ensureNodeBase(context: BaseImageContext): Promise<BaseImage> {
  const { buildah, dir, log } = context;
  const node = await hostNode();
  const { files, ...inputs } = node;
  const image = nodeBaseImage(inputs.nodeVersion);
  const stamp = baseStamp(inputs);
  const stampPath = path.join(dir, "node-base.json");
  const stampFile = parseBaseStampFile(await readFile(stampPath, "utf8").catch(() => undefined));
  const stored = await buildah.inspectImage(image);
  if (!context.force && baseIsCurrent(stampFile, stamp, image, stored?.id)) {
    log(`${image}: up to date (node ${inputs.nodeVersion}, npm ${inputs.npmVersion})`);
    return { image, imageID: stored?.id ?? "", built: false };
  }

  const scratch = path.join(dir, "tmp", `node-base.${process.pid}`);
  const rootfs = path.join(scratch, "rootfs");
  await removeTree(scratch);
  await mkdir(scratch, { recursive: true });
  try {
    log(`${image}: debootstrap --variant=minbase ${SUITE} from ${MIRROR}`);
    await debootstrap(rootfs);
    await tidyRootfs(rootfs);
    log(
      `${image}: adding node ${inputs.nodeVersion} (Debian package nodejs ${inputs.nodePackageVersion}) and npm ${inputs.npmVersion}`,
    );
    await copyNode(rootfs, files, scratch);
    const imageID = await commit(buildah, rootfs, image);
    await writeFile(stampPath, JSON.stringify({ stamp, image, imageID }, null, 2) + "\n");
    log(`${image}: committed ${imageID.slice(0, 12)}`);
    return { image, imageID, built: true };
  } finally {
    await removeTree(scratch);
  }
}

async function debootstrap(rootfs: string): Promise<void> {
  const child = spawn("debootstrap", ["--variant=minbase", "--components=main", SUITE, rootfs, MIRROR], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(chunk.toString("utf8"));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const code = await new Promise<number>((resolve, reject) => {
    child.once("error", (error) =>
      reject(
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? new Error(
              "debootstrap is missing: bash deploy/local/install-deps.sh (Debian package debootstrap)",
            )
          : error,
      ),
    );
    child.once("close", (status) => resolve(status ?? 1));
  });
  if (code !== 0) {
    const tail = output.join("").split("\n").slice(-30).join("\n");
    throw new Error(`debootstrap failed (exit ${code}):\n${tail}`);
  }
}

/** What debootstrap leaves that an image must not hold: this machine's name and resolver, caches, device nodes. */
async function tidyRootfs(rootfs: string): Promise<void> {
  await rm(path.join(rootfs, "etc/apt/sources.list"), { force: true });
  await mkdir(path.join(rootfs, "etc/apt/sources.list.d"), { recursive: true });
  await writeFile(path.join(rootfs, "etc/apt/sources.list.d/debian.sources"), SOURCES);
  for (const file of ["etc/hostname", "etc/resolv.conf", "var/log/bootstrap.log"]) {
    await rm(path.join(rootfs, file), { force: true });
  }
  for (const folder of ["var/cache/apt/archives", "var/lib/apt/lists", "dev"]) {
    const entries = await readdir(path.join(rootfs, folder)).catch(() => [] as string[]);
    for (const entry of entries) {
      if (folder === "var/cache/apt/archives" && entry === "partial") continue;
      await rm(path.join(rootfs, folder, entry), { recursive: true, force: true });
    }
  }
  for (const entry of await readdir(path.join(rootfs, "var/cache/apt")).catch(() => [] as string[])) {
    if (entry.endsWith(".bin")) await rm(path.join(rootfs, "var/cache/apt", entry), { force: true });
  }
}

/** Copies the node package's files (and npm's folder as installed) into the root, with tar to keep modes and links. */
async function copyNode(rootfs: string, files: readonly string[], scratch: string): Promise<void> {
  const list = path.join(scratch, "node-files");
  await writeFile(list, files.join("\n") + "\n");
  const pipe = (create: string) => `set -o pipefail; ${create} | tar -C "$1" -xpf -`;
  await run("bash", ["-c", pipe('tar -C / --no-recursion -cf - -T "$2"'), "copy-node", rootfs, list]);
  await run("bash", ["-c", pipe('tar -C / -cf - "$2"'), "copy-npm", rootfs, NPM_DIR.slice(1)]);
}

async function commit(buildah: Buildah, rootfs: string, image: string): Promise<string> {
  const container = await buildah.output([
    "from",
    "--name",
    `kubevirt-ts-node-base-${process.pid}`,
    "scratch",
  ]);
  try {
    await buildah.copyFiles(container, "in", rootfs);
    await buildah.output(["config", "--env", PATH_ENV, "--cmd", '["node"]', container]);
    // debootstrap installs the release as it was; the updates and security archives bring it up to date
    const upgrade = await buildah.run([
      "run",
      "--isolation",
      "chroot",
      container,
      "--",
      "sh",
      "-c",
      "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -q && apt-get clean && rm -rf /var/lib/apt/lists/*",
    ]);
    if (upgrade.code !== 0) {
      const tail = (upgrade.stdout + upgrade.stderr).trim().split("\n").slice(-20).join("\n");
      throw new Error(`apt-get upgrade in ${image} failed (exit ${upgrade.code}):\n${tail}`);
    }
    await buildah.output(["commit", "--quiet", container, image]);
  } finally {
    await buildah.run(["rm", container]);
  }
  const committed = await buildah.inspectImage(image);
  if (!committed) throw new Error(`buildah committed ${image} but does not find it`);
  return committed.id;
}

/** Removes a scratch tree, first unmounting what a failed debootstrap may have left mounted in it (proc, sys). */
async function removeTree(dir: string): Promise<void> {
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const mounts = mountinfo
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((target) => target === dir || target.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const target of mounts) await run("umount", ["-l", target]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

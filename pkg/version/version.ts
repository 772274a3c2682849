// The version of this build, one value for every component and virtctl (upstream's
// staging/src/kubevirt.io/client-go/version, whose fields hack/version.sh fills in at link time).
// Go bakes it into each binary; here it is found when a process first asks, from the first of:
//   1. the environment: KUBEVIRT_TS_GIT_VERSION (and _GIT_COMMIT, _GIT_TREE_STATE, _BUILD_DATE), for an
//      image build that passes them as build arguments;
//   2. version.json beside package.json, written at build time by `npx tsx hack/version.ts > version.json`
//      where the build context has no .git;
//   3. git in the checkout the process runs from (components run from it through tsx on the local
//      cluster): the commit, whether the tree is dirty, and the commit's time as the build date;
//   4. the package version alone.
// gitVersion is the package version plus the commit as upstream's hack/version.sh writes a version past
// its tag: `v0.1.0+<14 hex digits>`, with `-dirty` appended when the tree has changes.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** Upstream's version.Info, with the JSON keys virt-api serves it with. */
export const VersionInfoSchema = z.looseObject({
  gitVersion: z.string().default(""),
  gitCommit: z.string().default(""),
  gitTreeState: z.string().default(""),
  buildDate: z.string().default(""),
  /** Upstream names the toolchain after Go; here it is the Node.js version. */
  goVersion: z.string().default(""),
  compiler: z.string().default(""),
  platform: z.string().default(""),
});
export type VersionInfo = z.infer<typeof VersionInfoSchema>;

/** What a build knows about its source; the runtime fields come from the running process. */
export type BuildInfo = Pick<VersionInfo, "gitVersion" | "gitCommit" | "gitTreeState" | "buildDate">;

/** Upstream's default for a build that was given no date. */
export const UNKNOWN_BUILD_DATE = "1970-01-01T00:00:00Z";
export const VERSION_FILE = "version.json";
const ABBREV = 14; // hack/version.sh: git describe --abbrev=14

const GO_ARCH: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm" };
const PackageSchema = z.looseObject({ name: z.string(), version: z.string() });
const BuildInfoSchema = z.object({
  gitVersion: z.string().min(1),
  gitCommit: z.string().default(""),
  gitTreeState: z.string().default(""),
  buildDate: z.string().default(UNKNOWN_BUILD_DATE),
});

/** Runs git in `dir`; undefined when git is missing or fails (no .git, say). */
export type GitRunner = (dir: string, args: readonly string[]) => string | undefined;

export const runGit: GitRunner = (dir, args) => {
  try {
    return execFileSync("git", ["-c", "safe.directory=*", "-C", dir, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
      // Reading must not take the index lock: components run as other users over the same checkout.
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
    }).trim();
  } catch {
    return undefined;
  }
};

/** `%Y-%m-%dT%H:%M:%SZ` of a Unix time, as hack/version.sh formats the build date. */
function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function buildInfoFromGit(
  root: string,
  packageVersion: string,
  git: GitRunner = runGit,
): BuildInfo | undefined {
  const commit = git(root, ["rev-parse", "HEAD^{commit}"]);
  if (commit === undefined || !/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
  const status = git(root, ["status", "--porcelain"]);
  const treeState = status === "" ? "clean" : "dirty";
  const committed = Number(git(root, ["show", "-s", "--format=%ct", "HEAD"]));
  return {
    gitVersion: `v${packageVersion}+${commit.slice(0, ABBREV)}${treeState === "dirty" ? "-dirty" : ""}`,
    gitCommit: commit,
    gitTreeState: treeState,
    buildDate: Number.isFinite(committed) && committed > 0 ? rfc3339(committed) : UNKNOWN_BUILD_DATE,
  };
}

export function buildInfoFromEnv(env: NodeJS.ProcessEnv): BuildInfo | undefined {
  const gitVersion = env["KUBEVIRT_TS_GIT_VERSION"];
  if (!gitVersion) return undefined;
  return {
    gitVersion,
    gitCommit: env["KUBEVIRT_TS_GIT_COMMIT"] ?? "",
    gitTreeState: env["KUBEVIRT_TS_GIT_TREE_STATE"] ?? "",
    buildDate: env["KUBEVIRT_TS_BUILD_DATE"] || UNKNOWN_BUILD_DATE,
  };
}

function buildInfoFromFile(root: string): BuildInfo | undefined {
  const file = join(root, VERSION_FILE);
  if (!existsSync(file)) return undefined;
  const parsed = BuildInfoSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file}: not a version file: ${parsed.error.message}`);
  return parsed.data;
}

export interface VersionSources {
  env: NodeJS.ProcessEnv;
  /** The directory of kubevirt-ts's package.json. */
  root: string;
  packageVersion: string;
  git?: GitRunner;
}

export function resolveBuildInfo(sources: VersionSources): BuildInfo {
  return (
    buildInfoFromEnv(sources.env) ??
    buildInfoFromFile(sources.root) ??
    buildInfoFromGit(sources.root, sources.packageVersion, sources.git) ?? {
      gitVersion: `v${sources.packageVersion}`,
      gitCommit: "",
      gitTreeState: "",
      buildDate: UNKNOWN_BUILD_DATE,
    }
  );
}

/** kubevirt-ts's package root and version, searched upwards: this runs from the sources and from dist/. */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): {
  root: string;
  version: string;
} {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const parsed = PackageSchema.safeParse(JSON.parse(readFileSync(candidate, "utf8")));
      if (parsed.success && parsed.data.name === "kubevirt-ts")
        return { root: dir, version: parsed.data.version };
    }
    if (dirname(dir) === dir) throw new Error(`no kubevirt-ts package.json above ${from}`);
  }
}

let cached: VersionInfo | undefined;

/** Upstream's version.Get(): this build's version, the same in every component and in virtctl. */
export function get(): VersionInfo {
  if (cached === undefined) {
    const { root, version } = packageRoot();
    cached = {
      ...resolveBuildInfo({ env: process.env, root, packageVersion: version }),
      goVersion: process.version,
      compiler: "node",
      platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
    };
  }
  return { ...cached };
}

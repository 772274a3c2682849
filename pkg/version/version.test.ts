import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildInfoFromGit,
  get,
  packageRoot,
  resolveBuildInfo,
  runGit,
  UNKNOWN_BUILD_DATE,
} from "./version.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "version-"));
  dirs.push(dir);
  return dir;
}

/** A repository with one commit at a fixed time. */
function repository(): { dir: string; commit: string } {
  const dir = tempDir();
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, ...args], {
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.invalid",
        GIT_COMMITTER_DATE: "2026-01-02T03:04:05Z",
      },
    }).trim();
  git("init", "-q");
  writeFileSync(join(dir, "file"), "one\n");
  git("add", "file");
  git("commit", "-q", "-m", "one");
  return { dir, commit: git("rev-parse", "HEAD") };
}

describe("the build version", () => {
  it("from git: the package version plus the commit, upstream's build date and tree state", () => {
    const { dir, commit } = repository();
    expect(buildInfoFromGit(dir, "0.1.0")).toEqual({
      gitVersion: `v0.1.0+${commit.slice(0, 14)}`,
      gitCommit: commit,
      gitTreeState: "clean",
      buildDate: "2026-01-02T03:04:05Z",
    });
    writeFileSync(join(dir, "file"), "two\n");
    expect(buildInfoFromGit(dir, "0.1.0")).toMatchObject({
      gitVersion: `v0.1.0+${commit.slice(0, 14)}-dirty`,
      gitTreeState: "dirty",
    });
  });

  it("the environment (an image build's arguments) comes first", () => {
    const { dir } = repository();
    const env = {
      KUBEVIRT_TS_GIT_VERSION: "v0.1.0+0123456789abcd",
      KUBEVIRT_TS_GIT_COMMIT: "0123456789abcdef",
      KUBEVIRT_TS_GIT_TREE_STATE: "clean",
    };
    expect(resolveBuildInfo({ env, root: dir, packageVersion: "0.1.0" })).toEqual({
      gitVersion: "v0.1.0+0123456789abcd",
      gitCommit: "0123456789abcdef",
      gitTreeState: "clean",
      buildDate: UNKNOWN_BUILD_DATE,
    });
  });

  it("a baked version.json stands in for git where there is no .git", () => {
    const dir = tempDir();
    const baked = {
      gitVersion: "v0.1.0+fedcba98765432",
      gitCommit: "fedcba9876543210",
      gitTreeState: "clean",
      buildDate: "2026-03-04T05:06:07Z",
    };
    writeFileSync(join(dir, "version.json"), JSON.stringify(baked));
    expect(resolveBuildInfo({ env: {}, root: dir, packageVersion: "0.1.0" })).toEqual(baked);
  });

  it("without any source: the package version alone", () => {
    const dir = tempDir();
    expect(resolveBuildInfo({ env: {}, root: dir, packageVersion: "0.1.0", git: () => undefined })).toEqual({
      gitVersion: "v0.1.0",
      gitCommit: "",
      gitTreeState: "",
      buildDate: UNKNOWN_BUILD_DATE,
    });
  });

  it("this process: this checkout's commit and the Node.js runtime", () => {
    const { root, version } = packageRoot();
    const commit = runGit(root, ["rev-parse", "HEAD"]);
    const info = get();
    expect(info.gitCommit).toBe(commit);
    expect(info.gitVersion).toMatch(
      new RegExp(`^v${version.replace(/\./g, "\\.")}\\+${commit?.slice(0, 14)}`),
    );
    expect(info.goVersion).toBe(process.version);
    expect(info.compiler).toBe("node");
  });
});

// The real buildah on overlay storage in a folder of its own: a root's files go into a working container and
// come out of an image again as they were (owners, modes, links), through copyFiles, whose overlay mounts live
// only in the private mount namespace that made them.
import { execFileSync } from "node:child_process";
import {
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runnable, unlessRoot } from "../../pkg/testutils/requirement.js";
import { Buildah } from "./buildah.js";

const buildahMissing = (): string | undefined => {
  try {
    execFileSync("buildah", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "buildah is missing (bash deploy/local/install-deps.sh)";
  }
};
const canRun = runnable("Buildah.copyFiles on overlay storage", unlessRoot() ?? buildahMissing());

const dir = mkdtempSync(path.join(os.tmpdir(), "buildah-overlay-"));
const buildah = new Buildah({
  paths: { root: path.join(dir, "storage"), runroot: path.join(dir, "run") },
  env: { ...process.env, TMPDIR: dir },
});

afterAll(async () => {
  if (canRun) {
    await buildah.run(["rm", "--all"]);
    await buildah.run(["rmi", "--all", "--force"]);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(canRun)("Buildah.copyFiles on overlay storage", () => {
  it("puts a root into a container and takes it out of the committed image unchanged", async () => {
    const source = path.join(dir, "source");
    mkdirSync(path.join(source, "etc"), { recursive: true });
    writeFileSync(path.join(source, "etc/owned"), "by 107\n", { mode: 0o640 });
    chownSync(path.join(source, "etc/owned"), 107, 107);
    symlinkSync("owned", path.join(source, "etc/link"));

    const container = await buildah.output(["from", "--name", "copy-in", "scratch"]);
    await buildah.copyFiles(container, "in", source);
    await buildah.output(["commit", "--quiet", container, "localhost/copy-test:1"]);
    const again = await buildah.output([
      "from",
      "--pull=never",
      "--name",
      "copy-out",
      "localhost/copy-test:1",
    ]);
    const target = path.join(dir, "target");
    mkdirSync(target);
    await buildah.copyFiles(again, "out", target);

    const owned = lstatSync(path.join(target, "etc/owned"));
    expect({ uid: owned.uid, gid: owned.gid, mode: owned.mode & 0o777 }).toEqual({
      uid: 107,
      gid: 107,
      mode: 0o640,
    });
    expect(readFileSync(path.join(target, "etc/owned"), "utf8")).toBe("by 107\n");
    expect(readlinkSync(path.join(target, "etc/link"))).toBe("owned");
    // nothing stays mounted in this namespace
    expect(execFileSync("findmnt", ["-rn", "-o", "TARGET"], { encoding: "utf8" })).not.toContain(dir);
  }, 60_000);

  it("fails with buildah's or cp's message when the copy cannot be made", async () => {
    const container = await buildah.output(["from", "--name", "copy-fail", "scratch"]);
    await expect(buildah.copyFiles(container, "in", path.join(dir, "no-such-folder"))).rejects.toThrow(
      /no-such-folder/,
    );
  }, 60_000);
});

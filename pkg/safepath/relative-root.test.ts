import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SymlinkLoopError, resolveInRoot } from "./relative-root.js";

describe("resolveInRoot", () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "kvts-safepath-"));
    root = join(base, "root");
    outside = join(base, "outside");
    await mkdir(join(root, "run/kubevirt-private"), { recursive: true });
    await mkdir(join(root, "var"), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "secret"), "node");
    // As in most images: /var/run is an absolute symlink to /run.
    await symlink("/run", join(root, "var/run"));
    await symlink("../../run", join(root, "var/relative-run"));
    await symlink(outside, join(root, "escape"));
    await symlink("../../../../../..", join(root, "run/up"));
    await symlink("loop", join(root, "loop"));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it.each([
    ["an absolute symlink stays inside the root", "/var/run/kubevirt-private", "run/kubevirt-private"],
    [
      "a relative symlink cannot climb above the root",
      "/var/relative-run/kubevirt-private",
      "run/kubevirt-private",
    ],
    ["`..` stops at the root", "/run/up/run", "run"],
    [
      "missing components are appended unresolved",
      "/var/run/kubevirt-private/vif-cache-eth0.json",
      "run/kubevirt-private/vif-cache-eth0.json",
    ],
    ["the root itself", "/", ""],
  ])("%s", async (_case, path, expected) => {
    expect(await resolveInRoot(root, path)).toBe(join(root, expected));
  });

  it("resolves an absolute symlink to a node path inside the root, never to the node's file", async () => {
    expect(await resolveInRoot(root, "/escape/secret")).toBe(join(root, outside, "secret"));
  });

  it("refuses a symlink loop", async () => {
    await expect(resolveInRoot(root, "/loop/x")).rejects.toBeInstanceOf(SymlinkLoopError);
  });
});

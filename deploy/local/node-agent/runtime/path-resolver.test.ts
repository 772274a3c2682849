import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PathResolutionError, resolveInView, secureJoin } from "./path-resolver.js";

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-resolve-"));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "a/b"), { recursive: true });
  await mkdir(path.join(root, "run"), { recursive: true });
  await mkdir(path.join(root, "var"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(root, "file"), "x");
  await symlink("/a", path.join(root, "absolute-link"));
  await symlink("../../../../a", path.join(root, "climbing-link"));
  await symlink(outside, path.join(root, "host-link"));
  await symlink("../run", path.join(root, "var/run"));
  await symlink("loop", path.join(root, "loop"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("secureJoin", () => {
  it.each([
    ["/a/b", "a/b"],
    ["a/b/../../a", "a"],
    ["../../../../etc", "etc"],
    ["/absolute-link/b", "a/b"],
    ["/climbing-link", "a"],
    ["/var/run/kubevirt", "run/kubevirt"],
    ["/missing/../a", "a"],
    ["/", ""],
  ])("keeps %j inside the root", async (unsafe, expected) => {
    expect(await secureJoin(root, unsafe)).toBe(path.join(root, expected));
  });

  it("reinterprets a symlink to a host path inside the root", async () => {
    const joined = await secureJoin(root, "/host-link/secret");
    expect(joined).toBe(path.join(root, outside, "secret"));
    expect(joined.startsWith(root + path.sep)).toBe(true);
  });

  it("refuses symlink loops and paths through files", async () => {
    await expect(secureJoin(root, "/loop/x")).rejects.toBeInstanceOf(PathResolutionError);
    await expect(secureJoin(root, "/file/x")).rejects.toThrow(/not a directory/);
  });
});

describe("resolveInView", () => {
  it("reports what exists and what still has to be created", async () => {
    expect(await resolveInView([{ at: "/", source: root }], "/a/b")).toMatchObject({ kind: "directory" });
    expect(await resolveInView([{ at: "/", source: root }], "/file")).toMatchObject({ kind: "file" });
    expect(await resolveInView([{ at: "/", source: root }], "/a/new/dir")).toMatchObject({
      path: "/a/new/dir",
      kind: undefined,
    });
  });

  it("resolves through mounted layers and empty in-memory directories", async () => {
    const layers = [
      { at: "/", source: root },
      { at: "/run", source: null },
      { at: "/data/volume", source: path.join(root, "a") },
    ];
    expect(await resolveInView(layers, "/var/run/kubevirt")).toEqual({
      path: "/run/kubevirt",
      hostPath: undefined,
      kind: undefined,
    });
    expect(await resolveInView(layers, "/run")).toMatchObject({ path: "/run", kind: "directory" });
    expect(await resolveInView(layers, "/data/volume/b")).toEqual({
      path: "/data/volume/b",
      hostPath: path.join(root, "a/b"),
      kind: "directory",
    });
  });
});

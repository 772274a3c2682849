import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contextEntries,
  imageInputsHash,
  isIgnored,
  mayHoldIncluded,
  parseDockerignore,
  type ImageInputs,
} from "./context.js";

const RULES = parseDockerignore(`# only what the images need
*
!package.json
!cmd
!pkg
!deploy/local/node-agent/runtime
**/*.test.ts
**/testdata
`);

describe("parseDockerignore and isIgnored", () => {
  it("leaves out everything but what a ! pattern lets through, folders with what they hold", () => {
    expect(isIgnored(RULES, "package.json")).toBe(false);
    expect(isIgnored(RULES, "package-lock.json")).toBe(true);
    expect(isIgnored(RULES, "node_modules/zod/index.js")).toBe(true);
    expect(isIgnored(RULES, ".git/HEAD")).toBe(true);
    expect(isIgnored(RULES, "pkg/virt-api/rest/version.ts")).toBe(false);
    expect(isIgnored(RULES, "deploy/local/node-agent/runtime/image-store.ts")).toBe(false);
    expect(isIgnored(RULES, "deploy/local/up.ts")).toBe(true);
  });

  it("lets a later pattern leave out again, at any depth for **/", () => {
    expect(isIgnored(RULES, "pkg/virt-api/rest/version.test.ts")).toBe(true);
    expect(isIgnored(RULES, "cmd/virt-tail/main.test.ts")).toBe(true);
    expect(isIgnored(RULES, "pkg/a/testdata/x.json")).toBe(true);
    expect(isIgnored(RULES, "pkg/a/testdata")).toBe(true);
    expect(isIgnored(RULES, "pkg/a/testdata-like.ts")).toBe(false);
  });

  it("cleans patterns: leading / and ./, trailing /, comments and blank lines", () => {
    const rules = parseDockerignore("\n# comment\n/dist/\n./x\n! keep \n");
    expect(isIgnored(rules, "dist/a.js")).toBe(true);
    expect(isIgnored(rules, "x")).toBe(true);
    expect(isIgnored(rules, "keep")).toBe(false);
    expect(isIgnored(rules, "other")).toBe(false);
  });

  it("matches ? and * within one path component only", () => {
    const rules = parseDockerignore("a?c\nd/*.js\n");
    expect(isIgnored(rules, "abc")).toBe(true);
    expect(isIgnored(rules, "a/c")).toBe(false);
    expect(isIgnored(rules, "d/x.js")).toBe(true);
    expect(isIgnored(rules, "d/e/x.js")).toBe(false);
  });

  it("refuses what it does not implement rather than hash another context than buildah sends", () => {
    expect(() => parseDockerignore("[abc]\n")).toThrow(/not supported/);
  });
});

describe("mayHoldIncluded", () => {
  it("goes into an ignored folder only on the way to what a ! pattern lets through", () => {
    expect(mayHoldIncluded(RULES, "deploy")).toBe(true);
    expect(mayHoldIncluded(RULES, "deploy/local")).toBe(true);
    expect(mayHoldIncluded(RULES, "deploy/local/guest")).toBe(false);
    expect(mayHoldIncluded(RULES, "node_modules")).toBe(false);
    expect(mayHoldIncluded(RULES, ".local")).toBe(false);
  });
});

describe("contextEntries", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "kvts-context-"));
    await mkdir(path.join(root, "pkg/a/testdata"), { recursive: true });
    await mkdir(path.join(root, "node_modules/zod"), { recursive: true });
    await mkdir(path.join(root, "deploy/local/guest"), { recursive: true });
    await mkdir(path.join(root, "deploy/local/node-agent/runtime"), { recursive: true });
    await writeFile(path.join(root, "package.json"), "{}\n");
    await writeFile(path.join(root, "README.md"), "# x\n");
    await writeFile(path.join(root, "pkg/a/a.ts"), "export const a = 1;\n", { mode: 0o644 });
    await writeFile(path.join(root, "pkg/a/a.test.ts"), "test\n");
    await writeFile(path.join(root, "pkg/a/testdata/t.json"), "{}\n");
    await writeFile(path.join(root, "node_modules/zod/index.js"), "x\n");
    await writeFile(path.join(root, "deploy/local/guest/build.sh"), "x\n");
    await writeFile(path.join(root, "deploy/local/node-agent/runtime/image-store.ts"), "x\n");
    await symlink("a.ts", path.join(root, "pkg/a/link.ts"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("lists what the context holds with each file's mode and content hash, sorted", async () => {
    const entries = await contextEntries(root, RULES);
    expect(entries.map((entry) => entry.path)).toEqual([
      "deploy/local/node-agent/runtime",
      "deploy/local/node-agent/runtime/image-store.ts",
      "package.json",
      "pkg",
      "pkg/a",
      "pkg/a/a.ts",
      "pkg/a/link.ts",
    ]);
    expect(entries.find((entry) => entry.path === "pkg/a/a.ts")?.what).toMatch(/^file 644 [0-9a-f]{64}$/);
    expect(entries.find((entry) => entry.path === "pkg/a/link.ts")?.what).toBe("link a.ts");
  });

  it("changes when a file of the context changes, not when one outside does", async () => {
    const before = await contextEntries(root, RULES);
    await writeFile(path.join(root, "README.md"), "# changed\n");
    await writeFile(path.join(root, "pkg/a/a.test.ts"), "changed\n");
    expect(await contextEntries(root, RULES)).toEqual(before);
    await writeFile(path.join(root, "pkg/a/a.ts"), "export const a = 2;\n");
    expect(await contextEntries(root, RULES)).not.toEqual(before);
  });
});

describe("imageInputsHash", () => {
  const inputs: ImageInputs = {
    dockerfile: "FROM ${NODE_IMAGE}\n",
    buildArgs: {
      NODE_IMAGE: "localhost/kubevirt-ts/node-base:20-bookworm",
      KUBEVIRT_TS_VERSION: "v0.1.0",
    },
    baseImageID: "a".repeat(64),
    context: [{ path: "pkg/a.ts", what: `file 644 ${"b".repeat(64)}` }],
    buildah: "buildah version 1.28.2",
  };

  it("is stable, whatever the order of the build arguments", () => {
    const reordered = {
      ...inputs,
      buildArgs: { KUBEVIRT_TS_VERSION: "v0.1.0", NODE_IMAGE: inputs.buildArgs["NODE_IMAGE"] ?? "" },
    };
    expect(imageInputsHash(reordered)).toBe(imageInputsHash(inputs));
  });

  it("changes with the Dockerfile, an argument, the base image, the context and buildah", () => {
    const hashes = new Set([
      imageInputsHash(inputs),
      imageInputsHash({ ...inputs, dockerfile: "FROM ${NODE_IMAGE}\nUSER 1001\n" }),
      imageInputsHash({ ...inputs, buildArgs: { ...inputs.buildArgs, KUBEVIRT_TS_VERSION: "v0.1.1" } }),
      imageInputsHash({ ...inputs, baseImageID: "c".repeat(64) }),
      imageInputsHash({ ...inputs, context: [{ path: "pkg/a.ts", what: `file 755 ${"b".repeat(64)}` }] }),
      imageInputsHash({ ...inputs, context: [] }),
      imageInputsHash({ ...inputs, buildah: "buildah version 1.29.0" }),
    ]);
    expect(hashes.size).toBe(7);
  });
});

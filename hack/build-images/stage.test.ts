import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPONENT_BINARIES } from "../../deploy/local/node-agent/runtime/image-store.js";
import { imageTypescriptBinaries, shipped, stageImages, wrapperScript } from "./stage.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("wrapperScript", () => {
  it("runs the bundle with the node it is given", () => {
    expect(wrapperScript("virt-api", "/usr/local/bin/node", true)).toBe(
      '#!/bin/sh\nexec /usr/local/bin/node /opt/kubevirt/bin/virt-api.mjs "$@"\n',
    );
  });

  it("says so when kubevirt-ts has no entry point for the binary", () => {
    const script = wrapperScript("virt-probe", "/usr/bin/node", false);
    expect(script).toContain('echo "virt-probe: not built: kubevirt-ts has no cmd/virt-probe/main.ts" >&2');
    expect(script).toMatch(/exit 1\n$/);
  });
});

describe("shipped", () => {
  it.each([
    ["bin/virt-api.mjs", true],
    ["bin/virt-api.mjs.LEGAL.txt", true],
    ["pkg/handler-launcher-com/cmd.proto", true],
    ["bin/virt-api.mjs.map", false],
    [".stamps/virt-api.json", false],
  ])("%s: %s", (file, expected) => expect(shipped(file)).toBe(expected));
});

describe("stageImages (the build stage's step, run here on this checkout)", () => {
  let out: string;
  const files = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));

  beforeAll(async () => {
    out = mkdtempSync(path.join(os.tmpdir(), "stage-images-"));
    await stageImages(ROOT, out, "/usr/bin/node");
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("lays out one folder per image and nothing else", () => {
    expect(readdirSync(out).sort()).toEqual(Object.keys(COMPONENT_BINARIES).sort());
  });

  it.each(Object.keys(COMPONENT_BINARIES))(
    "%s: its own bundles and a wrapper each, no maps or stamps",
    (image) => {
      const root = path.join(out, image);
      const all = files(root);
      const bundles = all.filter((file) => file.endsWith(".mjs")).sort();
      const own = imageTypescriptBinaries(image).filter((binary) =>
        existsSync(path.join(ROOT, "cmd", binary, "main.ts")),
      );
      expect(bundles).toEqual(own.map((binary) => `opt/kubevirt/bin/${binary}.mjs`).sort());
      expect(all.filter((file) => !shipped(file))).toEqual([]);
      expect(all).toContain("opt/kubevirt/package.json");
      for (const binary of imageTypescriptBinaries(image)) {
        const wrapper = path.join(root, "usr/bin", binary);
        expect(statSync(wrapper).mode & 0o777).toBe(0o755);
        expect(readFileSync(wrapper, "utf8")).toBe(
          wrapperScript(binary, "/usr/bin/node", own.includes(binary)),
        );
      }
      // fixed timestamps: an unchanged file gives an unchanged layer
      expect(
        all.map((file) => statSync(path.join(root, file)).mtimeMs).filter((mtime) => mtime !== 0),
      ).toEqual([]);
    },
  );
});

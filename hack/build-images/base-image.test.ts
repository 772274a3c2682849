import { describe, expect, it } from "vitest";
import { nodeBaseImage, nodePackagePaths } from "./base-image.js";

describe("nodeBaseImage", () => {
  it("names the local base after node's major version and the Debian release, in our own repository", () => {
    expect(nodeBaseImage("v20.20.2")).toBe("localhost/kubevirt-ts/node-base:20-bookworm");
    expect(nodeBaseImage("22.1.0")).toBe("localhost/kubevirt-ts/node-base:22-bookworm");
    expect(() => nodeBaseImage("node")).toThrow(/major version/);
  });
});

describe("nodePackagePaths", () => {
  it("copies what dpkg lists for the package, but npm's files: npm goes whole, as installed", () => {
    const list = [
      "/.",
      "/usr",
      "/usr/bin",
      "/usr/bin/node",
      "/usr/lib/node_modules",
      "/usr/lib/node_modules/corepack/package.json",
      "/usr/lib/node_modules/npm",
      "/usr/lib/node_modules/npm/package.json",
      "/usr/lib/node_modules/npm/lib/commands/hook.js",
      "/usr/lib/node_modules/npmrc-like/x",
      "/usr/bin/npm",
      "",
    ].join("\n");
    expect(nodePackagePaths(list)).toEqual([
      "usr",
      "usr/bin",
      "usr/bin/node",
      "usr/lib/node_modules",
      "usr/lib/node_modules/corepack/package.json",
      "usr/lib/node_modules/npmrc-like/x",
      "usr/bin/npm",
    ]);
  });
});

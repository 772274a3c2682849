import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkGeneratedFiles, writeGeneratedFiles } from "./write-generated.js";

describe("checkGeneratedFiles", () => {
  const files = [
    { path: "pkg/api/generated/a.ts", content: "export const a = 1;\n" },
    { path: "manifests/generated/crds/x.yaml", content: "kind: X\n" },
  ];

  it("reports nothing right after writing", () => {
    const root = mkdtempSync(join(tmpdir(), "gen-"));
    writeGeneratedFiles(root, files);
    expect(checkGeneratedFiles(root, files)).toEqual([]);
  });

  it("reports edited, missing and stale files", () => {
    const root = mkdtempSync(join(tmpdir(), "gen-"));
    writeGeneratedFiles(root, files);
    writeFileSync(join(root, "pkg/api/generated/a.ts"), "export const a = 2;\n");
    mkdirSync(join(root, "manifests/generated/old"), { recursive: true });
    writeFileSync(join(root, "manifests/generated/old/y.yaml"), "kind: Y\n");
    const extra = [...files, { path: "pkg/api/generated/b.ts", content: "" }];
    expect(checkGeneratedFiles(root, extra).sort()).toEqual([
      "differs: pkg/api/generated/a.ts",
      "missing: pkg/api/generated/b.ts",
      "not generated: manifests/generated/old/y.yaml",
    ]);
  });

  it("removes stale files when writing", () => {
    const root = mkdtempSync(join(tmpdir(), "gen-"));
    mkdirSync(join(root, "pkg/api/generated"), { recursive: true });
    writeFileSync(join(root, "pkg/api/generated/gone.ts"), "");
    writeGeneratedFiles(root, files);
    expect(checkGeneratedFiles(root, files)).toEqual([]);
  });
});

import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { GeneratedFile } from "./generated-file.js";

/** Folders that hold nothing but generated output: files there that no generator produces are stale. */
export const generatedRoots = [
  "pkg/api/generated",
  "manifests/generated",
  "pkg/libvirt/generated",
  "manifests/release",
  "pkg/virt-operator/resource/generate/components/data/common-instancetypes",
];

function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function staleFiles(repoRoot: string, files: GeneratedFile[]): string[] {
  const wanted = new Set(files.map((f) => join(repoRoot, f.path)));
  return generatedRoots.flatMap((r) => listFiles(join(repoRoot, r))).filter((p) => !wanted.has(p));
}

export function writeGeneratedFiles(repoRoot: string, files: GeneratedFile[]): void {
  for (const stale of staleFiles(repoRoot, files)) rmSync(stale);
  for (const f of files) {
    const path = join(repoRoot, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
  }
}

/** One line per difference between what the generators produce and what is on disk. */
export function checkGeneratedFiles(repoRoot: string, files: GeneratedFile[]): string[] {
  const drift: string[] = [];
  for (const f of files) {
    const path = join(repoRoot, f.path);
    if (!existsSync(path)) drift.push(`missing: ${f.path}`);
    else if (readFileSync(path, "utf8") !== f.content) drift.push(`differs: ${f.path}`);
  }
  for (const stale of staleFiles(repoRoot, files)) drift.push(`not generated: ${relative(repoRoot, stale)}`);
  return drift;
}

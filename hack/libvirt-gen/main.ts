// Writes pkg/libvirt/generated/*.ts from libvirt's protocol files; `--check` writes nothing and
// exits 1 if the committed files differ. (hack/write-generated.ts is not used on purpose: it prunes
// the other generators' folders, which only makes sense when all generators run together.)
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATED_DIR, generateLibvirtSources } from "./index.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const files = generateLibvirtSources();
const wanted = new Set(files.map((file) => file.path));
const generatedDir = join(repoRoot, GENERATED_DIR);
const stale = existsSync(generatedDir)
  ? readdirSync(generatedDir)
      .map((name) => `${GENERATED_DIR}/${name}`)
      .filter((path) => !wanted.has(path))
  : [];

if (process.argv.includes("--check")) {
  const drift = files
    .filter(
      (file) =>
        !existsSync(join(repoRoot, file.path)) ||
        readFileSync(join(repoRoot, file.path), "utf8") !== file.content,
    )
    .map((file) => `differs or missing: ${file.path}`)
    .concat(stale.map((path) => `not generated: ${path}`));
  for (const line of drift) console.error(line);
  process.exit(drift.length === 0 ? 0 : 1);
}
mkdirSync(generatedDir, { recursive: true });
for (const path of stale) rmSync(join(repoRoot, path));
for (const file of files) writeFileSync(join(repoRoot, file.path), file.content);
console.log(`wrote ${files.length} files under ${GENERATED_DIR}`);

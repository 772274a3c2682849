// Writes the generated CRDs (only those: other generators own the rest of manifests/generated).
// Usage: npx tsx hack/crd-gen/main.ts
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { repoRoot } from "../all-generators.js";
import { CRD_OUTPUT_DIR, generateCrdFiles } from "./index.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const files = generateCrdFiles(loadSwagger());
const outputDir = join(repoRoot, CRD_OUTPUT_DIR);
mkdirSync(outputDir, { recursive: true });
const wanted = new Set(files.map((f) => basename(f.path)));
for (const stale of readdirSync(outputDir).filter((name) => !wanted.has(name)))
  rmSync(join(outputDir, stale));
for (const file of files) writeFileSync(join(repoRoot, file.path), file.content);
console.log(`wrote ${files.length} CRDs to ${CRD_OUTPUT_DIR}`);

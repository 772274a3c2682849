// Writes the common-instancetypes bundles. Usage: npx tsx hack/common-instancetypes-gen/main.ts
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { repoRoot } from "../all-generators.js";
import { generateCommonInstancetypesBundles } from "./index.js";

for (const file of generateCommonInstancetypesBundles()) {
  const path = join(repoRoot, file.path);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file.content);
  console.log(`wrote ${path}`);
}

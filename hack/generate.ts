// Regenerates every generated file of the repo from its source of truth
// (api/openapi-spec/swagger.json, hack/libvirt-gen/protocol). `--check` writes nothing and exits 1 on drift.
import { generateAll, repoRoot } from "./all-generators.js";
import { checkGeneratedFiles, writeGeneratedFiles } from "./write-generated.js";
import { loadSwagger } from "../pkg/virt-operator/util/swagger.js";

const checkOnly = process.argv.includes("--check");
const files = generateAll(loadSwagger());
if (checkOnly) {
  const drift = checkGeneratedFiles(repoRoot, files);
  for (const line of drift) console.error(line);
  process.exit(drift.length === 0 ? 0 : 1);
}
writeGeneratedFiles(repoRoot, files);
console.log(`wrote ${files.length} generated files`);

// Writes pkg/api/generated/*.ts from api/openapi-spec/swagger.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateApiSources } from "./index.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const swagger: unknown = loadSwagger();
const files = generateApiSources(swagger);
for (const file of files) {
  const target = join(repoRoot, file.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content);
}
console.log(`wrote ${files.length} files under pkg/api/generated`);

// Upstream's OpenAPI document, which the CRD schemas are built from. It ships beside the code (the repo in
// development, the image's copy in production): found by walking up from this module.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SWAGGER_PATH = join("api", "openapi-spec", "swagger.json");

export function findSwaggerFile(start = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, SWAGGER_PATH);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${SWAGGER_PATH} not found above ${start}`);
  }
}

export function loadSwagger(path = findSwaggerFile()): unknown {
  return JSON.parse(readFileSync(path, "utf8")) as unknown;
}

// Upstream's OpenAPI document, which the CRD schemas are built from. It ships beside the code (the repo in
// development, the image's copy in production): found by walking up from this module.
import { existsSync, readFileSync, readdirSync } from "node:fs";
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

/** Folder beside the document with definitions upstream installs CRDs for but its document lacks. */
export const ADDENDA_DIR = "addenda";

interface SwaggerDocument {
  definitions?: Record<string, unknown>;
}

/** Upstream's document with the addenda's definitions merged in; an addendum never replaces a definition. */
export function loadSwagger(path = findSwaggerFile()): unknown {
  const doc = JSON.parse(readFileSync(path, "utf8")) as SwaggerDocument;
  const addendaDir = join(dirname(path), ADDENDA_DIR);
  if (!existsSync(addendaDir)) return doc;
  const definitions = { ...doc.definitions };
  for (const file of readdirSync(addendaDir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const addendum = JSON.parse(readFileSync(join(addendaDir, file), "utf8")) as SwaggerDocument;
    for (const [name, schema] of Object.entries(addendum.definitions ?? {})) {
      if (name in definitions)
        throw new Error(`${ADDENDA_DIR}/${file}: ${name} is already in ${SWAGGER_PATH}`);
      definitions[name] = schema;
    }
  }
  return { ...doc, definitions };
}

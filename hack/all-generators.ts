import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import type { GeneratedFile } from "./generated-file.js";
import { generateApiSources } from "./api-gen/index.js";
import { generateCrdFiles } from "./crd-gen/index.js";
import { generateLibvirtSources } from "./libvirt-gen/index.js";

export const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/** Every generated file of the repo: from upstream's OpenAPI document and libvirt's protocol files. */
export function generateAll(swagger: unknown): GeneratedFile[] {
  return [...generateApiSources(swagger), ...generateCrdFiles(swagger), ...generateLibvirtSources()];
}

import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import type { GeneratedFile } from "./generated-file.js";
import { generateApiSources } from "./api-gen/index.js";
import { generateCommonInstancetypesBundles } from "./common-instancetypes-gen/index.js";
import { generateCrdFiles } from "./crd-gen/index.js";
import { generateLibvirtSources } from "./libvirt-gen/index.js";
import { DEFAULT_REGISTRY, DEFAULT_TAG, generateReleaseManifests } from "./manifest-gen/index.js";

export const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * Every generated file of the repo: API, CRDs and release manifests from upstream's OpenAPI document; the
 * libvirt client from libvirt's protocol files; the common-instancetypes bundles from their typed tables.
 */
export function generateAll(swagger: unknown): GeneratedFile[] {
  return [
    ...generateApiSources(swagger),
    ...generateCrdFiles(swagger),
    ...generateLibvirtSources(),
    ...generateReleaseManifests({ registry: DEFAULT_REGISTRY, tag: DEFAULT_TAG, swagger }),
    ...generateCommonInstancetypesBundles(),
  ];
}

// Generates pkg/api/generated/*.ts (types + zod schemas for every reference definition) from
// upstream's swagger document.
import type { GeneratedFile } from "../generated-file.js";
import { formatTypeScript } from "./format.js";
import { topLevelKinds } from "./kinds.js";
import { locateDefinition } from "./names.js";
import { renderIndex } from "./render-index.js";
import { renderModule } from "./render-module.js";
import { parseSwagger } from "./swagger.js";

export const GENERATED_DIR = "pkg/api/generated";

export function generateApiSources(swagger: unknown): GeneratedFile[] {
  const doc = parseSwagger(swagger);
  const names = Object.keys(doc.definitions).sort();
  const byModule = new Map<string, string[]>();
  for (const name of names) {
    const { module } = locateDefinition(name);
    byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  const unformatted: GeneratedFile[] = [...byModule.keys()].sort().map((module) => ({
    path: `${GENERATED_DIR}/${module}.ts`,
    content: renderModule(module, byModule.get(module) ?? [], doc.definitions),
  }));
  unformatted.push({ path: `${GENERATED_DIR}/index.ts`, content: renderIndex(names, topLevelKinds(doc)) });
  const formatted = formatTypeScript(unformatted.map((f) => f.content));
  return unformatted.map((file, i) => ({ path: file.path, content: formatted[i] ?? file.content }));
}

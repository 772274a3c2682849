// pkg/api/generated/index.ts: the definition-name → schema map and the table of top-level kinds.
import type { TopLevelKind } from "./kinds.js";
import { locateDefinition, schemaName } from "./names.js";
import { GENERATED_HEADER } from "./render-module.js";

export function renderIndex(definitionNames: readonly string[], kinds: readonly TopLevelKind[]): string {
  const names = [...definitionNames].sort();
  const modules = [...new Set(names.map((n) => locateDefinition(n).module))].sort();
  const qualified = (name: string, suffix: (t: string) => string): string => {
    const { module, typeName } = locateDefinition(name);
    return `${module}.${suffix(typeName)}`;
  };
  const typeEntries = names.map((n) => `${JSON.stringify(n)}: ${qualified(n, (t) => t)};`);
  const schemaEntries = names.map((n) => `${JSON.stringify(n)}: ${qualified(n, schemaName)},`);
  const kindEntries = kinds.map((k) => `${JSON.stringify(k)},`);
  return `${GENERATED_HEADER}import type { z } from "zod";
${modules.map((m) => `import * as ${m} from "./${m}.js";`).join("\n")}

${modules.map((m) => `export { ${m} };`).join("\n")}

/** The TypeScript type of every reference definition, by its name in the reference. */
export interface DefinitionTypes {
${typeEntries.join("\n")}
}

/** A definition name of the reference, e.g. \`v1.VirtualMachine\`. */
export type DefinitionName = keyof DefinitionTypes;

/** The zod schema of every reference definition, by its name in the reference. */
export const definitionSchemas: { readonly [N in DefinitionName]: z.ZodType<DefinitionTypes[N]> } = {
${schemaEntries.join("\n")}
};

/** A kind served at \`/apis/<group>/<version>/<plural>\` in the reference. */
export interface TopLevelKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  definition: DefinitionName;
  listDefinition: DefinitionName;
}

/** Every top-level kind of the reference, sorted by group, version and plural. */
export const topLevelKinds: readonly TopLevelKind[] = [
${kindEntries.join("\n")}
];
`;
}

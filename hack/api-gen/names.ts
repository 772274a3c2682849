// Where each reference definition lands in the generated TypeScript: one module per
// version prefix (`v1.ts`, `v1beta1.ts`, ...) and one `k8s.ts` for every k8s.io.* definition.

export interface DefinitionLocation {
  /** Module (file stem under pkg/api/generated, also the namespace it is imported as). */
  module: string;
  /** Interface name; the zod schema is `${typeName}Schema`. */
  typeName: string;
}

const K8S_PREFIX = "k8s.io.";
const MODULE_NAME = /^[a-z][a-z0-9]*$/;
const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;

export function locateDefinition(definitionName: string): DefinitionLocation {
  const dot = definitionName.lastIndexOf(".");
  const prefix = definitionName.slice(0, dot);
  const typeName = definitionName.slice(dot + 1);
  const module = prefix.startsWith(K8S_PREFIX) ? "k8s" : prefix;
  if (dot <= 0 || !MODULE_NAME.test(module) || !TYPE_NAME.test(typeName)) {
    throw new Error(
      `definition name ${JSON.stringify(definitionName)} is not <version>.<Type> or k8s.io.*.<Type>`,
    );
  }
  return { module, typeName };
}

export function schemaName(typeName: string): string {
  return `${typeName}Schema`;
}

const REF_PREFIX = "#/definitions/";

/** `#/definitions/v1.Disk` → `v1.Disk`. */
export function refTarget(ref: string): string {
  if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${JSON.stringify(ref)}`);
  return ref.slice(REF_PREFIX.length);
}

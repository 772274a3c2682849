// The apiserver's static validation of a CustomResourceDefinition object (names, versions, printer
// columns, subresources, size) plus the structural-schema rules of every version, on plain JSON.
import { isObject } from "./json.js";
import type { JsonObject } from "./json.js";
import { checkStructuralSchema } from "./structural-check.js";

/** etcd's default request limit (--max-request-bytes): a larger CRD cannot be stored at all. */
export const MAX_CRD_BYTES = 1.5 * 1024 * 1024;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND_NAME = /^[A-Z][A-Za-z0-9]*$/;
const COLUMN_TYPES = new Set(["integer", "number", "string", "boolean", "date"]);
const MAX_DEPRECATION_WARNING = 256;

function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function checkCustomResourceDefinition(crd: unknown): string[] {
  if (!isObject(crd)) return ["CustomResourceDefinition: must be an object"];
  const errors: string[] = [];
  if (crd.apiVersion !== "apiextensions.k8s.io/v1")
    errors.push("apiVersion: must be apiextensions.k8s.io/v1");
  if (crd.kind !== "CustomResourceDefinition") errors.push("kind: must be CustomResourceDefinition");
  const spec = asObject(crd.spec);
  const names = asObject(spec.names);
  const name = asObject(crd.metadata).name;
  if (name !== `${String(names.plural)}.${String(spec.group)}`) {
    errors.push(`metadata.name: must be spec.names.plural+"."+spec.group`);
  }
  if (typeof spec.group !== "string" || !spec.group.includes("."))
    errors.push("spec.group: should be a domain");
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster")
    errors.push("spec.scope: Namespaced or Cluster");
  errors.push(...checkNames(names));
  errors.push(...checkVersions(asList(spec.versions)));
  const size = JSON.stringify(crd).length;
  if (size > MAX_CRD_BYTES)
    errors.push(`CustomResourceDefinition: ${size} bytes exceed etcd's ${MAX_CRD_BYTES}`);
  return errors;
}

function checkNames(names: JsonObject): string[] {
  const errors: string[] = [];
  for (const field of ["plural", "singular"]) {
    const value = names[field];
    if (typeof value !== "string" || !DNS1035_LABEL.test(value)) {
      errors.push(`spec.names.${field}: must be a lower-case DNS-1035 label`);
    }
  }
  for (const field of ["kind", "listKind"]) {
    const value = names[field];
    if (typeof value !== "string" || !KIND_NAME.test(value))
      errors.push(`spec.names.${field}: must be CamelCase`);
  }
  if (names.kind === names.listKind) errors.push("spec.names.listKind: must differ from kind");
  asList(names.shortNames).forEach((short, i) => {
    if (typeof short !== "string" || !DNS1035_LABEL.test(short)) {
      errors.push(`spec.names.shortNames[${i}]: must be a lower-case DNS-1035 label`);
    }
  });
  return errors;
}

function checkVersions(versions: unknown[]): string[] {
  const errors: string[] = [];
  if (versions.length === 0) errors.push("spec.versions: must have at least one version");
  const storage = versions.filter((v) => asObject(v).storage === true);
  if (storage.length !== 1)
    errors.push("spec.versions: must have exactly one version marked as storage version");
  const seen = new Set<unknown>();
  versions.forEach((raw, i) => {
    const version = asObject(raw);
    const at = `spec.versions[${i}]`;
    if (typeof version.name !== "string" || !DNS1035_LABEL.test(version.name)) {
      errors.push(`${at}.name: must be a DNS-1035 label`);
    }
    if (seen.has(version.name)) errors.push(`${at}.name: must be unique`);
    seen.add(version.name);
    errors.push(...checkDeprecation(version, at));
    errors.push(...checkColumns(asList(version.additionalPrinterColumns), at));
    const subresources = asObject(version.subresources);
    errors.push(...checkScale(subresources.scale, at));
    const schema = asObject(version.schema).openAPIV3Schema;
    if (schema === undefined) {
      errors.push(`${at}.schema.openAPIV3Schema: Required value`);
      return;
    }
    const statusSubresource = subresources.status !== undefined;
    for (const e of checkStructuralSchema(schema, { statusSubresource })) errors.push(`${at}.schema.${e}`);
  });
  return errors;
}

function checkDeprecation(version: JsonObject, at: string): string[] {
  const warning = version.deprecationWarning;
  if (warning === undefined) return [];
  if (version.deprecated !== true)
    return [`${at}.deprecationWarning: can only be set for deprecated versions`];
  if (typeof warning !== "string" || warning.length > MAX_DEPRECATION_WARNING || /[\r\n\t]/.test(warning)) {
    return [
      `${at}.deprecationWarning: must be one printable line of at most ${MAX_DEPRECATION_WARNING} characters`,
    ];
  }
  return [];
}

function checkColumns(columns: unknown[], at: string): string[] {
  const errors: string[] = [];
  const names = new Set<unknown>();
  columns.forEach((raw, i) => {
    const column = asObject(raw);
    const path = `${at}.additionalPrinterColumns[${i}]`;
    if (typeof column.name !== "string" || column.name === "") errors.push(`${path}.name: Required value`);
    if (names.has(column.name)) errors.push(`${path}.name: must be unique`);
    names.add(column.name);
    if (typeof column.type !== "string" || !COLUMN_TYPES.has(column.type)) {
      errors.push(`${path}.type: must be one of ${[...COLUMN_TYPES].join(", ")}`);
    }
    if (typeof column.jsonPath !== "string" || !column.jsonPath.startsWith(".")) {
      errors.push(`${path}.jsonPath: must be a JSONPath starting with .`);
    }
    const { priority } = column;
    if (
      priority !== undefined &&
      (typeof priority !== "number" || !Number.isInteger(priority) || priority < 0)
    ) {
      errors.push(`${path}.priority: must be a non-negative integer`);
    }
  });
  return errors;
}

function checkScale(scale: unknown, at: string): string[] {
  if (scale === undefined) return [];
  const { specReplicasPath, statusReplicasPath, labelSelectorPath } = asObject(scale);
  const errors: string[] = [];
  const path = `${at}.subresources.scale`;
  if (typeof specReplicasPath !== "string" || !specReplicasPath.startsWith(".spec.")) {
    errors.push(`${path}.specReplicasPath: should be a json path under .spec`);
  }
  if (typeof statusReplicasPath !== "string" || !statusReplicasPath.startsWith(".status.")) {
    errors.push(`${path}.statusReplicasPath: should be a json path under .status`);
  }
  if (
    labelSelectorPath !== undefined &&
    (typeof labelSelectorPath !== "string" || !/^\.(spec|status)\./.test(labelSelectorPath))
  ) {
    errors.push(`${path}.labelSelectorPath: should be a json path under either .spec or .status`);
  }
  return errors;
}

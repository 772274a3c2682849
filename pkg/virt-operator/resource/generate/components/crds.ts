// The CustomResourceDefinitions virt-operator installs, one per kubevirt kind, built from the kinds
// registry, upstream's per-CRD details and a structural schema derived from the reference document.
import { KINDS, crdName } from "../../../../api/kinds.js";
import type { KindVersion, KubeVirtKind } from "../../../../api/kinds.js";
import { CRD_DETAILS, DEFAULT_CRD_LABELS } from "./crd-details.js";
import type { CrdDetails } from "./crd-details.js";
import { structuralSchemaFor } from "./crd-schema.js";
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from "./crd-types.js";
import { parseReferenceDocument } from "../../../../api/openapi-reference.js";
import type { ReferenceDocument } from "../../../../api/openapi-reference.js";

export type { CustomResourceDefinition } from "./crd-types.js";

/** The reference document, parsed once per input object (callers usually pass the same swagger). */
const parsedReferences = new WeakMap<object, ReferenceDocument>();

function referenceOf(swagger: unknown): ReferenceDocument {
  if (typeof swagger !== "object" || swagger === null) return parseReferenceDocument(swagger);
  let parsed = parsedReferences.get(swagger);
  if (parsed === undefined) {
    parsed = parseReferenceDocument(swagger);
    parsedReferences.set(swagger, parsed);
  }
  return parsed;
}

function detailsOf(kind: KubeVirtKind): CrdDetails {
  const details = CRD_DETAILS[crdName(kind)];
  if (details === undefined) throw new Error(`no CRD details for ${crdName(kind)}`);
  // Details share column objects between CRDs; hand every CRD its own copy.
  return structuredClone(details);
}

function crdVersion(
  version: KindVersion,
  details: CrdDetails,
  schemaOf: (definition: string) => JSONSchemaProps,
): CustomResourceDefinitionVersion {
  const out: CustomResourceDefinitionVersion = {
    name: version.name,
    served: version.served,
    storage: version.storage,
    schema: { openAPIV3Schema: schemaOf(version.definition) },
  };
  if (version.deprecated === true) out.deprecated = true;
  if (version.deprecationWarning !== undefined) out.deprecationWarning = version.deprecationWarning;
  if (details.subresources !== undefined) out.subresources = structuredClone(details.subresources);
  if (details.columns !== undefined) out.additionalPrinterColumns = structuredClone(details.columns);
  return out;
}

/** The CRD of one kind, with the schema built from `swagger` (upstream's OpenAPI document). */
export function newCustomResourceDefinition(kind: KubeVirtKind, swagger: unknown): CustomResourceDefinition {
  const doc = referenceOf(swagger);
  const details = detailsOf(kind);
  const schemas = new Map<string, JSONSchemaProps>();
  const schemaOf = (definition: string): JSONSchemaProps => {
    const built = schemas.get(definition) ?? structuralSchemaFor(doc, definition);
    schemas.set(definition, built);
    return structuredClone(built);
  };
  const crd: CustomResourceDefinition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName(kind), labels: { ...(details.labels ?? DEFAULT_CRD_LABELS) } },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        singular: kind.singular,
      },
      scope: kind.scope,
      versions: kind.versions.map((v) => crdVersion(v, details, schemaOf)),
    },
  };
  if (kind.shortNames.length > 0) crd.spec.names.shortNames = [...kind.shortNames];
  if (kind.categories.length > 0) crd.spec.names.categories = [...kind.categories];
  if (details.noneConversion === true) crd.spec.conversion = { strategy: "None" };
  return crd;
}

/** Every CRD virt-operator installs, in the registry's order. */
export function allCustomResourceDefinitions(swagger: unknown): CustomResourceDefinition[] {
  return KINDS.map((kind) => newCustomResourceDefinition(kind, swagger));
}

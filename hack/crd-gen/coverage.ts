// How much of upstream's schema a generated CRD carries: the share of the reference's property paths
// that the CRD schema contains, and, on those paths, whether type, description, required list and enum
// came along unchanged.
import type { JSONSchemaProps } from "../../pkg/virt-operator/resource/generate/components/crd-types.js";
import type { ReferenceDocument } from "../../pkg/api/openapi-reference.js";
import { crdSchemaPaths, referencePaths } from "./schema-paths.js";
import type { PathFacts } from "./schema-paths.js";

export interface CoverageReport {
  definition: string;
  /** Reference paths counted (top-level `metadata.*` excluded, see `isServedByApiserver`). */
  total: number;
  covered: number;
  percent: number;
  missing: string[];
  /** Covered paths whose facts differ, as `path: what`. */
  differences: string[];
  /** Top-level ObjectMeta paths left out of both sides. */
  excluded: number;
}

/**
 * A CRD may only declare `metadata: {type: object}` at its root; the apiserver validates (and
 * `kubectl explain` shows) ObjectMeta itself. Those paths are therefore not the CRD's to carry.
 */
export function isServedByApiserver(path: string): boolean {
  return path.startsWith("metadata.") || path.startsWith("metadata[]") || path.startsWith("metadata{}");
}

export function measureCoverage(
  doc: ReferenceDocument,
  definition: string,
  schema: JSONSchemaProps,
): CoverageReport {
  const reference = referencePaths(doc, definition);
  const generated = crdSchemaPaths(schema);
  const missing: string[] = [];
  const differences: string[] = [];
  let total = 0;
  let excluded = 0;
  for (const [path, expected] of reference) {
    if (isServedByApiserver(path)) {
      excluded++;
      continue;
    }
    total++;
    const actual = generated.get(path);
    if (actual === undefined) missing.push(path);
    else differences.push(...compareFacts(path, expected, actual));
  }
  const covered = total - missing.length;
  const percent = total === 0 ? 100 : (100 * covered) / total;
  return { definition, total, covered, percent, missing, differences, excluded };
}

function compareFacts(path: string, expected: PathFacts, actual: PathFacts): string[] {
  const out: string[] = [];
  // Untyped reference nodes become preserve-unknown objects: any CRD type is acceptable there.
  if (expected.type !== "" && expected.type !== actual.type) {
    out.push(`${path}: type ${actual.type || "(none)"}, reference ${expected.type}`);
  }
  if (expected.description !== undefined && expected.description !== actual.description) {
    out.push(`${path}: description differs`);
  }
  if (!sameMembers(expected.required, actual.required)) {
    out.push(`${path}: required [${actual.required ?? []}], reference [${expected.required ?? []}]`);
  }
  if (!sameMembers(expected.enum, actual.enum)) out.push(`${path}: enum differs`);
  return out;
}

function sameMembers(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  const left = new Set(a ?? []);
  const right = new Set(b ?? []);
  return left.size === right.size && [...left].every((v) => right.has(v));
}

import { describe, expect, it } from "vitest";
import { kindByGroupKind, storageVersion } from "../../pkg/api/kinds.js";
import type { JSONSchemaProps } from "../../pkg/virt-operator/resource/generate/components/crd-types.js";
import { newCustomResourceDefinition } from "../../pkg/virt-operator/resource/generate/components/crds.js";
import { parseReferenceDocument } from "../../pkg/api/openapi-reference.js";
import { measureCoverage } from "./coverage.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const swagger: unknown = loadSwagger();
const doc = parseReferenceDocument(swagger);

/** The bar: the generated CRDs carry at least this share of upstream's property paths. */
const REQUIRED_PERCENT = 98;

const measuredKinds: [group: string, kind: string][] = [
  ["kubevirt.io", "VirtualMachine"],
  ["kubevirt.io", "VirtualMachineInstance"],
  ["kubevirt.io", "VirtualMachineInstanceReplicaSet"],
  ["kubevirt.io", "VirtualMachineInstanceMigration"],
  ["kubevirt.io", "KubeVirt"],
  ["pool.kubevirt.io", "VirtualMachinePool"],
  ["snapshot.kubevirt.io", "VirtualMachineSnapshot"],
  ["instancetype.kubevirt.io", "VirtualMachineInstancetype"],
];

function storageSchemaOf(group: string, kindName: string): { definition: string; schema: JSONSchemaProps } {
  const kind = kindByGroupKind(group, kindName);
  if (kind === undefined) throw new Error(`${group}/${kindName} is not registered`);
  const { name, definition } = storageVersion(kind);
  const version = newCustomResourceDefinition(kind, swagger).spec.versions.find((v) => v.name === name);
  if (version === undefined) throw new Error(`${kindName} CRD lacks version ${name}`);
  return { definition, schema: version.schema.openAPIV3Schema };
}

describe("CRD coverage of upstream's schema", () => {
  it.each(measuredKinds)(
    `%s %s carries at least ${REQUIRED_PERCENT}% of the reference's paths`,
    (group, kind) => {
      const { definition, schema } = storageSchemaOf(group, kind);
      const report = measureCoverage(doc, definition, schema);
      console.log(
        `${kind}: ${report.percent.toFixed(2)}% of ${report.total} property paths of ${definition} ` +
          `(${report.excluded} top-level metadata.* paths left to the apiserver)`,
      );
      expect(report.total).toBeGreaterThan(10);
      const firstMissing = `first missing: ${report.missing.slice(0, 20).join(", ")}`;
      expect(report.percent, firstMissing).toBeGreaterThanOrEqual(REQUIRED_PERCENT);
      // On every path it carries, the CRD says what the reference says.
      expect(report.differences).toEqual([]);
    },
  );
});

describe("measureCoverage", () => {
  const { definition, schema } = storageSchemaOf("kubevirt.io", "VirtualMachineInstanceMigration");

  it("counts a removed subtree as missing", () => {
    const damaged = structuredClone(schema);
    const status = damaged.properties?.status;
    expect(Object.keys(status?.properties ?? {})).toContain("phase");
    delete status?.properties;
    const report = measureCoverage(doc, definition, damaged);
    expect(report.missing).toContain("status.phase");
    expect(report.missing.every((p) => p.startsWith("status."))).toBe(true);
    expect(report.percent).toBeLessThan(100);
    expect(report.covered + report.missing.length).toBe(report.total);
  });

  it("reports a changed type, description, required list or enum on a covered path", () => {
    const damaged = structuredClone(schema);
    const spec = damaged.properties?.spec;
    const vmiName = spec?.properties?.vmiName;
    if (spec === undefined || vmiName === undefined) throw new Error("unexpected VMIM schema");
    vmiName.type = "integer";
    vmiName.description = "something else";
    spec.required = ["vmiName"];
    const report = measureCoverage(doc, definition, damaged);
    expect(report.percent).toBe(100);
    expect(report.differences).toEqual(
      expect.arrayContaining([
        "spec.vmiName: type integer, reference string",
        "spec.vmiName: description differs",
        expect.stringMatching(/^spec: required \[vmiName\], reference \[/),
      ]),
    );
  });

  it("leaves top-level metadata to the apiserver on both sides", () => {
    const report = measureCoverage(doc, definition, schema);
    expect(report.excluded).toBeGreaterThan(0);
    expect(report.missing.some((p) => p.startsWith("metadata."))).toBe(false);
  });
});

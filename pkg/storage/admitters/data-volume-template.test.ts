import { describe, expect, it } from "vitest";
import { Path } from "../../api/field.js";
import type { DataVolumeTemplateSpec, VirtualMachineSpec } from "../../api/generated/v1.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateDataVolumeTemplateNamespaces, validateDataVolumeTemplates } from "./data-volume-template.js";

const at = "spec.dataVolumeTemplate[0]";
const spec = (
  template: Partial<DataVolumeTemplateSpec>,
  volumes = [{ name: "d", dataVolume: { name: "dv" } }],
) =>
  ({
    template: { spec: { domain: { devices: {} }, volumes } },
    dataVolumeTemplates: [{ metadata: { name: "dv" }, spec: {}, ...template }],
  }) as VirtualMachineSpec;

describe("dataVolumeTemplates as upstream's VM admitter checks them", () => {
  it.each<[string, Partial<DataVolumeTemplateSpec>, { reason: string; field: string; message: string }[]]>([
    ["a complete template", { spec: { pvc: {}, source: { http: { url: "http://x" } } } }, []],
    ["an externally populated one", { spec: { storage: { dataSourceRef: { kind: "K", name: "n" } } } }, []],
    [
      "a nameless one",
      { metadata: {}, spec: { pvc: {} } },
      [
        {
          reason: "FieldValueRequired",
          field: `${at}.name`,
          message: `'name' field must not be empty for DataVolumeTemplate entry ${at}.name.`,
        },
      ],
    ],
    [
      "neither pvc nor storage",
      { spec: { source: { blank: {} } } },
      [
        {
          reason: "FieldValueInvalid",
          field: `${at}.PVC.Storage`,
          message: "Missing Data volume PVC or Storage",
        },
      ],
    ],
    [
      "both pvc and storage",
      { spec: { pvc: {}, storage: {}, source: { blank: {} } } },
      [
        {
          reason: "FieldValueInvalid",
          field: `${at}.PVC.Storage`,
          message: "Duplicate storage definition, both target storage and target pvc defined",
        },
      ],
    ],
    [
      "a source and external population",
      { spec: { pvc: { dataSource: { kind: "K", name: "n" } }, source: { blank: {} } } },
      [
        {
          reason: "FieldValueInvalid",
          field: `${at}.source`,
          message: "External population is incompatible with Source and SourceRef",
        },
      ],
    ],
    [
      "no way of being populated",
      { spec: { pvc: {} } },
      [
        {
          reason: "FieldValueInvalid",
          field: `${at}.source.sourceRef`,
          message: "Data volume should have either Source, SourceRef, or be externally populated",
        },
      ],
    ],
    [
      "an empty source",
      { spec: { pvc: {}, source: {} } },
      [{ reason: "FieldValueInvalid", field: `${at}.source`, message: "Missing dataVolume valid source" }],
    ],
    [
      "two sources",
      { spec: { pvc: {}, source: { blank: {}, http: { url: "http://x" } } } },
      [{ reason: "FieldValueInvalid", field: `${at}.source`, message: "Multiple dataVolume sources" }],
    ],
  ])("%s", (_what, template, causes) => {
    expect(validateDataVolumeTemplates(Path.of("spec"), spec(template))).toEqual(causes);
  });

  it("finds the reference in a persistentVolumeClaim volume as well", () => {
    const template = { spec: { pvc: {}, source: { blank: {} } } };
    const byClaim = spec(template, [{ name: "d", persistentVolumeClaim: { claimName: "dv" } } as never]);
    expect(validateDataVolumeTemplates(Path.of("spec"), byClaim)).toEqual([]);
    expect(validateDataVolumeTemplates(Path.of("spec"), spec(template, []))).toHaveLength(1);
  });

  it("checks embedded namespaces on create and on updates that change the templates", () => {
    const vm = { metadata: {}, spec: spec({ metadata: { name: "dv", namespace: "other" } }) };
    const causes = [
      {
        reason: "FieldValueInvalid",
        field: "spec.dataVolumeTemplates[0]",
        message: "Embedded DataVolume namespace other differs from VM namespace ns",
      },
    ];
    expect(validateDataVolumeTemplateNamespaces(vm, "ns", "create", semanticEqual)).toEqual(causes);
    expect(validateDataVolumeTemplateNamespaces(vm, "ns", [], semanticEqual)).toEqual(causes);
    expect(
      validateDataVolumeTemplateNamespaces(vm, "ns", vm.spec.dataVolumeTemplates, semanticEqual),
    ).toEqual([]);
    expect(validateDataVolumeTemplateNamespaces(vm, "other", "create", semanticEqual)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { KINDS, crdName, kindByGroupKind } from "../../../../api/kinds.js";
import type { CustomResourceColumnDefinition, JSONSchemaProps } from "./crd-types.js";
import { allCustomResourceDefinitions, newCustomResourceDefinition } from "./crds.js";
import { loadSwagger } from "../../../util/swagger.js";

const swagger: unknown = loadSwagger();
const referenceDefinitions = (
  swagger as { definitions: Record<string, { properties?: Record<string, unknown> }> }
).definitions;
const crds = allCustomResourceDefinitions(swagger);
const byName = new Map(crds.map((crd) => [crd.metadata.name, crd]));

function crd(name: string) {
  const found = byName.get(name);
  if (found === undefined) throw new Error(`no CRD ${name}`);
  return found;
}

/** Printer columns as `Name:type:jsonPath[:p<priority>][ (description)]`, one string per column. */
function columnsOf(columns: CustomResourceColumnDefinition[] | undefined): string[] {
  return (columns ?? []).map(
    (c) =>
      `${c.name}:${c.type}:${c.jsonPath}${c.priority ? `:p${c.priority}` : ""}` +
      (c.description ? ` (${c.description})` : ""),
  );
}

const cond = (type: string) => `.status.conditions[?(@.type=='${type}')].status`;

// Upstream's printer columns, from crds.go.
const upstreamColumns: [string, string[]][] = [
  ["virtualmachineinstances.kubevirt.io", ["Age:date:.metadata.creationTimestamp", "Phase:string:.status.phase", "IP:string:.status.interfaces[0].ipAddress", "NodeName:string:.status.nodeName", `Ready:string:${cond("Ready")}`, `Live-Migratable:string:${cond("LiveMigratable")}:p1`, `Paused:string:${cond("Paused")}:p1`]],
  ["virtualmachines.kubevirt.io", ["Age:date:.metadata.creationTimestamp", "Status:string:.status.printableStatus (Human Readable Status)", `Ready:string:${cond("Ready")}`]],
  ["virtualmachineinstancereplicasets.kubevirt.io", ["Desired:integer:.spec.replicas (Number of desired VirtualMachineInstances)", "Current:integer:.status.replicas (Number of managed and not final or deleted VirtualMachineInstances)", "Ready:integer:.status.readyReplicas (Number of managed VirtualMachineInstances which are ready to receive traffic)", "Age:date:.metadata.creationTimestamp"]],
  ["virtualmachinepools.pool.kubevirt.io", ["Desired:integer:.spec.replicas (Number of desired VirtualMachines)", "Current:integer:.status.replicas (Number of managed and not final or deleted VirtualMachines)", "Ready:integer:.status.readyReplicas (Number of managed VirtualMachines which are ready to receive traffic)", "Age:date:.metadata.creationTimestamp"]],
  ["virtualmachineinstancemigrations.kubevirt.io", ["Phase:string:.status.phase (The current phase of VM instance migration)", "VMI:string:.spec.vmiName (The name of the VMI to perform the migration on)"]],
  ["kubevirts.kubevirt.io", ["Age:date:.metadata.creationTimestamp", "Phase:string:.status.phase"]],
  ["virtualmachinesnapshots.snapshot.kubevirt.io", ["SourceKind:string:.spec.source.kind", "SourceName:string:.spec.source.name", "Phase:string:.status.phase", "ReadyToUse:boolean:.status.readyToUse", "CreationTime:date:.status.creationTime", "Error:string:.status.error.message"]],
  ["virtualmachinesnapshotcontents.snapshot.kubevirt.io", ["ReadyToUse:boolean:.status.readyToUse", "CreationTime:date:.status.creationTime", "Error:string:.status.error.message"]],
  ["virtualmachinerestores.snapshot.kubevirt.io", ["TargetKind:string:.spec.target.kind", "TargetName:string:.spec.target.name", "Complete:boolean:.status.complete", "RestoreTime:date:.status.restoreTime"]],
  ["virtualmachineexports.export.kubevirt.io", ["SourceKind:string:.spec.source.kind", "SourceName:string:.spec.source.name", "Phase:string:.status.phase"]],
  ["virtualmachinebackups.backup.kubevirt.io", ["SourceKind:string:.spec.source.kind", "SourceName:string:.spec.source.name", "Type:string:.status.type", "CheckpointName:string:.status.checkpointName"]],
  ["virtualmachineclones.clone.kubevirt.io", ["Phase:string:.status.phase", "SourceVirtualMachine:string:.spec.source.name", "TargetVirtualMachine:string:.spec.target.name"]],
  ["virtualmachineinstancepresets.kubevirt.io", []],
  ["virtualmachineinstancetypes.instancetype.kubevirt.io", []],
  ["virtualmachineclusterinstancetypes.instancetype.kubevirt.io", []],
  ["virtualmachinepreferences.instancetype.kubevirt.io", []],
  ["virtualmachineclusterpreferences.instancetype.kubevirt.io", []],
  ["migrationpolicies.migrations.kubevirt.io", []],
]; // prettier-ignore

// Upstream's subresources ("status", "scale") and explicit `conversion: None`, from crds.go.
const upstreamSubresources: [string, string[], boolean][] = [
  ["virtualmachineinstances.kubevirt.io", [], false],
  ["virtualmachines.kubevirt.io", ["status"], false],
  ["virtualmachineinstancepresets.kubevirt.io", [], false],
  ["virtualmachineinstancereplicasets.kubevirt.io", ["scale", "status"], false],
  ["virtualmachineinstancemigrations.kubevirt.io", ["status"], false],
  ["kubevirts.kubevirt.io", ["status"], false],
  ["virtualmachinepools.pool.kubevirt.io", ["scale", "status"], false],
  ["virtualmachinesnapshots.snapshot.kubevirt.io", ["status"], true],
  ["virtualmachinesnapshotcontents.snapshot.kubevirt.io", ["status"], true],
  ["virtualmachinerestores.snapshot.kubevirt.io", ["status"], true],
  ["virtualmachineexports.export.kubevirt.io", ["status"], true],
  ["virtualmachinebackups.backup.kubevirt.io", ["status"], true],
  ["virtualmachineinstancetypes.instancetype.kubevirt.io", [], true],
  ["virtualmachineclusterinstancetypes.instancetype.kubevirt.io", [], true],
  ["virtualmachinepreferences.instancetype.kubevirt.io", [], true],
  ["virtualmachineclusterpreferences.instancetype.kubevirt.io", [], true],
  ["migrationpolicies.migrations.kubevirt.io", ["status"], false],
  ["virtualmachineclones.clone.kubevirt.io", ["status"], false],
];

describe("allCustomResourceDefinitions", () => {
  it("makes one CRD per registered kind, named <plural>.<group>", () => {
    expect(crds.map((c) => c.metadata.name)).toEqual(KINDS.map(crdName));
  });

  it.each(upstreamColumns)("%s has upstream's printer columns on every version", (name, expected) => {
    for (const version of crd(name).spec.versions)
      expect(columnsOf(version.additionalPrinterColumns)).toEqual(expected);
  });

  it.each(upstreamSubresources)("%s has subresources %j (conversion None: %s)", (name, expected, none) => {
    const target = crd(name);
    for (const version of target.spec.versions) {
      expect(Object.keys(version.subresources ?? {}).sort()).toEqual(expected);
    }
    expect(target.spec.conversion).toEqual(none ? { strategy: "None" } : undefined);
  });

  it("points the scale subresource at replicas and the published label selector", () => {
    for (const name of [
      "virtualmachineinstancereplicasets.kubevirt.io",
      "virtualmachinepools.pool.kubevirt.io",
    ]) {
      expect(crd(name).spec.versions[0]?.subresources?.scale).toEqual({
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.labelSelector",
      });
    }
  });

  it("labels the KubeVirt CRD for the operator and every other CRD for kubevirt", () => {
    for (const c of crds) {
      const expected =
        c.spec.names.kind === "KubeVirt" ? { "operator.kubevirt.io": "" } : { "kubevirt.io": "" };
      expect(c.metadata.labels, c.metadata.name).toEqual(expected);
    }
  });

  it("copies names, scope and versions from the registry", () => {
    for (const kind of KINDS) {
      const c = crd(crdName(kind));
      expect(c.spec.group).toBe(kind.group);
      expect(c.spec.scope).toBe(kind.scope);
      expect(c.spec.names).toEqual({
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        singular: kind.singular,
        ...(kind.shortNames.length > 0 ? { shortNames: kind.shortNames } : {}),
        ...(kind.categories.length > 0 ? { categories: kind.categories } : {}),
      });
      expect(c.spec.versions.map(({ name, served, storage, deprecated, deprecationWarning }) => ({ name, served, storage, deprecated, deprecationWarning }))).toEqual(
        kind.versions.map(({ name, served, storage, deprecated, deprecationWarning }) => ({ name, served, storage, deprecated, deprecationWarning })),
      ); // prettier-ignore
    }
  });
});

describe("CRD schemas", () => {
  const vm = crd("virtualmachines.kubevirt.io");
  const vmSchema = vm.spec.versions[0]!.schema.openAPIV3Schema;

  function at(schema: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
    let node: JSONSchemaProps | undefined = schema;
    for (const segment of path.split(".")) {
      node = segment.endsWith("[]")
        ? node?.properties?.[segment.slice(0, -2)]?.items
        : node?.properties?.[segment];
    }
    return node;
  }

  it("reads like upstream under kubectl explain vm.spec.template.spec.domain", () => {
    const domain = at(vmSchema, "spec.template.spec.domain");
    expect(domain?.description).toBe(
      (referenceDefinitions["v1.VirtualMachineInstanceSpec"]?.properties?.domain as { description: string })
        .description,
    );
    expect(domain?.required).toContain("devices");
    expect(at(vmSchema, "spec.template.spec.domain.devices.disks[].name")?.type).toBe("string");
    expect(at(vmSchema, "spec.template.spec.domain.resources.requests")?.additionalProperties).toMatchObject({
      "x-kubernetes-int-or-string": true,
    });
  });

  it("uses the same schema for an older served version as for the storage version", () => {
    const [v1, v1alpha3] = vm.spec.versions;
    expect(v1alpha3?.schema).toEqual(v1?.schema);
    expect(v1alpha3?.schema).not.toBe(v1?.schema);
  });

  it("keeps list markers of the reference, e.g. topologySpreadConstraints as a map list", () => {
    const constraints = at(vmSchema, "spec.template.spec.topologySpreadConstraints");
    expect(constraints?.["x-kubernetes-list-type"]).toBe("map");
    expect(constraints?.["x-kubernetes-list-map-keys"]).toEqual(["topologyKey", "whenUnsatisfiable"]);
  });

  it("hands out independent objects", () => {
    const kind = kindByGroupKind("kubevirt.io", "KubeVirt");
    if (kind === undefined) throw new Error("KubeVirt is not registered");
    const first = newCustomResourceDefinition(kind, swagger);
    first.spec.versions[0]!.additionalPrinterColumns![0]!.name = "changed";
    first.metadata.labels.extra = "x";
    const second = newCustomResourceDefinition(kind, swagger);
    expect(second.spec.versions[0]?.additionalPrinterColumns?.[0]?.name).toBe("Age");
    expect(second.metadata.labels).toEqual({ "operator.kubevirt.io": "" });
  });

  it("rejects a document that is not swagger 2.0", () => {
    const kind = KINDS[0]!;
    expect(() => newCustomResourceDefinition(kind, { openapi: "3.0.0" })).toThrow(
      /not a swagger 2.0 document/,
    );
  });
});

import { describe, expect, it } from "vitest";
import {
  KINDS,
  crdName,
  definitionFor,
  kindByApiVersion,
  kindByCrdName,
  kindByGroupKind,
  kindByResource,
  servedVersions,
  storageVersion,
} from "./kinds.js";
import { loadSwagger } from "../virt-operator/util/swagger.js";

const swagger = loadSwagger() as { definitions: Record<string, unknown>; paths: Record<string, unknown> };

// One row per CRD as upstream's operator creates it (crds.go + the api register files).
const upstream: {
  crd: string;
  kind: string;
  scope: "Namespaced" | "Cluster";
  shortNames: string[];
  all: boolean;
  versions: string; // served versions, storage marked with *
  deprecated: string[];
}[] = [
  { crd: "virtualmachines.kubevirt.io", kind: "VirtualMachine", scope: "Namespaced", shortNames: ["vm", "vms"], all: true, versions: "v1* v1alpha3", deprecated: ["v1alpha3"] },
  { crd: "virtualmachineinstances.kubevirt.io", kind: "VirtualMachineInstance", scope: "Namespaced", shortNames: ["vmi", "vmis"], all: true, versions: "v1* v1alpha3", deprecated: ["v1alpha3"] },
  { crd: "virtualmachineinstancereplicasets.kubevirt.io", kind: "VirtualMachineInstanceReplicaSet", scope: "Namespaced", shortNames: ["vmirs", "vmirss"], all: true, versions: "v1* v1alpha3", deprecated: ["v1alpha3"] },
  { crd: "virtualmachineinstancemigrations.kubevirt.io", kind: "VirtualMachineInstanceMigration", scope: "Namespaced", shortNames: ["vmim", "vmims"], all: true, versions: "v1* v1alpha3", deprecated: ["v1alpha3"] },
  { crd: "virtualmachineinstancepresets.kubevirt.io", kind: "VirtualMachineInstancePreset", scope: "Namespaced", shortNames: ["vmipreset", "vmipresets"], all: true, versions: "v1 v1alpha3*", deprecated: ["v1", "v1alpha3"] },
  { crd: "kubevirts.kubevirt.io", kind: "KubeVirt", scope: "Namespaced", shortNames: ["kv", "kvs"], all: true, versions: "v1* v1alpha3", deprecated: ["v1alpha3"] },
  { crd: "virtualmachinepools.pool.kubevirt.io", kind: "VirtualMachinePool", scope: "Namespaced", shortNames: ["vmpool", "vmpools"], all: true, versions: "v1alpha1 v1beta1*", deprecated: [] },
  { crd: "virtualmachinesnapshots.snapshot.kubevirt.io", kind: "VirtualMachineSnapshot", scope: "Namespaced", shortNames: ["vmsnapshot", "vmsnapshots"], all: true, versions: "v1alpha1 v1beta1*", deprecated: [] },
  { crd: "virtualmachinesnapshotcontents.snapshot.kubevirt.io", kind: "VirtualMachineSnapshotContent", scope: "Namespaced", shortNames: ["vmsnapshotcontent", "vmsnapshotcontents"], all: true, versions: "v1alpha1 v1beta1*", deprecated: [] },
  { crd: "virtualmachinerestores.snapshot.kubevirt.io", kind: "VirtualMachineRestore", scope: "Namespaced", shortNames: ["vmrestore", "vmrestores"], all: true, versions: "v1alpha1 v1beta1*", deprecated: [] },
  { crd: "virtualmachineexports.export.kubevirt.io", kind: "VirtualMachineExport", scope: "Namespaced", shortNames: ["vmexport", "vmexports"], all: true, versions: "v1beta1 v1*", deprecated: ["v1beta1"] },
  { crd: "virtualmachinebackups.backup.kubevirt.io", kind: "VirtualMachineBackup", scope: "Namespaced", shortNames: ["vmbackup", "vmbackups"], all: true, versions: "v1alpha1*", deprecated: [] },
  { crd: "virtualmachinebackuptrackers.backup.kubevirt.io", kind: "VirtualMachineBackupTracker", scope: "Namespaced", shortNames: ["vmbackuptracker", "vmbackuptrackers"], all: true, versions: "v1alpha1*", deprecated: [] },
  { crd: "virtualmachineinstancetypes.instancetype.kubevirt.io", kind: "VirtualMachineInstancetype", scope: "Namespaced", shortNames: ["vminstancetype", "vminstancetypes", "vmf", "vmfs"], all: true, versions: "v1beta1*", deprecated: [] },
  { crd: "virtualmachineclusterinstancetypes.instancetype.kubevirt.io", kind: "VirtualMachineClusterInstancetype", scope: "Cluster", shortNames: ["vmclusterinstancetype", "vmclusterinstancetypes", "vmcf", "vmcfs"], all: false, versions: "v1beta1*", deprecated: [] },
  { crd: "virtualmachinepreferences.instancetype.kubevirt.io", kind: "VirtualMachinePreference", scope: "Namespaced", shortNames: ["vmpref", "vmprefs", "vmp", "vmps"], all: true, versions: "v1beta1*", deprecated: [] },
  { crd: "virtualmachineclusterpreferences.instancetype.kubevirt.io", kind: "VirtualMachineClusterPreference", scope: "Cluster", shortNames: ["vmcp", "vmcps"], all: false, versions: "v1beta1*", deprecated: [] },
  { crd: "migrationpolicies.migrations.kubevirt.io", kind: "MigrationPolicy", scope: "Cluster", shortNames: [], all: false, versions: "v1alpha1*", deprecated: [] },
  { crd: "virtualmachineclones.clone.kubevirt.io", kind: "VirtualMachineClone", scope: "Namespaced", shortNames: ["vmclone", "vmclones"], all: true, versions: "v1alpha1 v1beta1*", deprecated: [] },
]; // prettier-ignore

describe("kinds registry", () => {
  it("has exactly the CRDs upstream's operator creates (those the reference describes)", () => {
    expect(KINDS.map(crdName).sort()).toEqual(upstream.map((row) => row.crd).sort());
  });

  describe.each(upstream)("$crd", (row) => {
    const kind = KINDS.find((k) => crdName(k) === row.crd);

    it("has upstream's names, scope and categories", () => {
      expect(kind).toBeDefined();
      expect(kind?.kind).toBe(row.kind);
      expect(kind?.listKind).toBe(`${row.kind}List`);
      expect(kind?.singular).toBe(row.kind.toLowerCase());
      expect(kind?.scope).toBe(row.scope);
      expect(kind?.shortNames).toEqual(row.shortNames);
      expect(kind?.categories).toEqual(row.all ? ["all"] : []);
    });

    it("has upstream's versions in upstream's order", () => {
      const listed = kind?.versions.map((v) => `${v.name}${v.storage ? "*" : ""}`).join(" ");
      expect(listed).toBe(row.versions);
      expect(kind?.versions.every((v) => v.served)).toBe(true);
      expect(kind?.versions.filter((v) => v.deprecated).map((v) => v.name)).toEqual(row.deprecated);
      for (const v of kind?.versions ?? [])
        expect(v.deprecationWarning !== undefined).toBe(v.deprecated === true);
    });

    it("describes every version with a definition the reference has", () => {
      for (const v of kind?.versions ?? []) {
        expect(swagger.definitions[v.definition], v.definition).toBeDefined();
        expect(v.definition.endsWith(`.${row.kind}`)).toBe(true);
      }
    });
  });

  it("is served and named as the reference's collection paths say", () => {
    // The reference publishes one version per group; its path for KubeVirt is spelled `kubevirt`, and it
    // lists clones without a namespace although upstream's clone CRD is Namespaced (crds.go decides).
    // Kinds whose definitions come from the addenda have no path in the reference at all.
    for (const kind of KINDS.filter((k) => k.kind !== "VirtualMachineBackupTracker")) {
      const plural = kind.kind === "KubeVirt" ? "kubevirt" : kind.plural;
      const scopes = kind.scope === "Namespaced" ? ["namespaces/{namespace}/", ""] : [""];
      const paths = kind.versions.flatMap((v) =>
        scopes.map((s) => `/apis/${kind.group}/${v.name}/${s}${plural}`),
      );
      expect(
        paths.some((p) => swagger.paths[p] !== undefined),
        paths.join(" | "),
      ).toBe(true);
    }
  });

  it("warns about deprecated core versions with upstream's words", () => {
    const vm = kindByGroupKind("kubevirt.io", "VirtualMachine");
    expect(vm?.versions.find((v) => v.name === "v1alpha3")?.deprecationWarning).toBe(
      "kubevirt.io/v1alpha3 is now deprecated and will be removed in a future release.",
    );
    const preset = kindByGroupKind("kubevirt.io", "VirtualMachineInstancePreset");
    expect(preset?.versions.map((v) => v.deprecationWarning)).toEqual([
      "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2.",
      "kubevirt.io/v1alpha3 VirtualMachineInstancePresets is now deprecated and will be removed in v2.",
    ]);
  });
});

describe("lookups", () => {
  it.each([
    ["kubevirt.io", "virtualmachines", "VirtualMachine"],
    ["kubevirt.io", "virtualmachine", "VirtualMachine"],
    ["kubevirt.io", "vm", "VirtualMachine"],
    ["kubevirt.io", "VMIS", "VirtualMachineInstance"],
    ["kubevirt.io", "kubevirts", "KubeVirt"],
    ["instancetype.kubevirt.io", "vmf", "VirtualMachineInstancetype"],
    ["instancetype.kubevirt.io", "vmcps", "VirtualMachineClusterPreference"],
    ["migrations.kubevirt.io", "migrationpolicies", "MigrationPolicy"],
  ])("kindByResource(%s, %s) is %s", (group, resource, kind) => {
    expect(kindByResource(group, resource)?.kind).toBe(kind);
  });

  it("does not resolve a resource in another group", () => {
    expect(kindByResource("pool.kubevirt.io", "vm")).toBeUndefined();
    expect(kindByResource("kubevirt.io", "pods")).toBeUndefined();
  });

  it("finds kinds by CRD name", () => {
    expect(kindByCrdName("virtualmachineinstancemigrations.kubevirt.io")?.kind).toBe(
      "VirtualMachineInstanceMigration",
    );
    expect(kindByCrdName("virtualmachinebackuptrackers.backup.kubevirt.io")?.kind).toBe(
      "VirtualMachineBackupTracker",
    );
    expect(kindByCrdName("virtualmachinebackupcheckpoints.backup.kubevirt.io")).toBeUndefined();
  });

  it("finds kinds by group and kind only within their group", () => {
    expect(kindByGroupKind("pool.kubevirt.io", "VirtualMachinePool")?.plural).toBe("virtualmachinepools");
    expect(kindByGroupKind("kubevirt.io", "VirtualMachinePool")).toBeUndefined();
  });

  it.each([
    ["kubevirt.io/v1", "VirtualMachine", "v1.VirtualMachine"],
    ["kubevirt.io/v1alpha3", "VirtualMachineInstance", "v1.VirtualMachineInstance"],
    ["pool.kubevirt.io/v1alpha1", "VirtualMachinePool", "v1beta1.VirtualMachinePool"],
    ["export.kubevirt.io/v1beta1", "VirtualMachineExport", "v1.VirtualMachineExport"],
    ["clone.kubevirt.io/v1alpha1", "VirtualMachineClone", "v1beta1.VirtualMachineClone"],
    ["migrations.kubevirt.io/v1alpha1", "MigrationPolicy", "v1alpha1.MigrationPolicy"],
  ])("definitionFor(%s, %s) is %s", (apiVersion, kind, definition) => {
    expect(definitionFor(apiVersion, kind)).toBe(definition);
  });

  it.each([
    ["kubevirt.io/v2", "VirtualMachine"],
    ["v1", "VirtualMachine"],
    ["instancetype.kubevirt.io/v1alpha1", "VirtualMachineInstancetype"],
    ["kubevirt.io/v1", "Pod"],
  ])("knows no served %s %s", (apiVersion, kind) => {
    expect(kindByApiVersion(apiVersion, kind)).toBeUndefined();
  });

  it("lists served versions and the single storage version", () => {
    const vmi = kindByGroupKind("kubevirt.io", "VirtualMachineInstance");
    expect(vmi && servedVersions(vmi).map((v) => v.name)).toEqual(["v1", "v1alpha3"]);
    expect(vmi && storageVersion(vmi).name).toBe("v1");
  });
});

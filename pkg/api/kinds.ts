// The registry of every kubevirt.io kind that is served as a CustomResourceDefinition: names, scope and
// versions exactly as upstream's virt-operator creates the CRDs, plus the reference definition
// (api/openapi-spec/swagger.json) that describes each served version. Webhooks, the operator, the CRD
// generator and the object parser all look kinds up here.

export const GROUPS = {
  core: "kubevirt.io",
  pool: "pool.kubevirt.io",
  snapshot: "snapshot.kubevirt.io",
  export: "export.kubevirt.io",
  backup: "backup.kubevirt.io",
  instancetype: "instancetype.kubevirt.io",
  migrations: "migrations.kubevirt.io",
  clone: "clone.kubevirt.io",
} as const;

export type KindScope = "Namespaced" | "Cluster";

export interface KindVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** Reference definition describing this version, e.g. `v1.VirtualMachine`. */
  definition: string;
}

export interface KubeVirtKind {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  scope: KindScope;
  shortNames: readonly string[];
  /** `["all"]` where upstream lists the kind under `kubectl get all`. */
  categories: readonly string[];
  versions: readonly KindVersion[];
}

interface KindSpec {
  group: string;
  kind: string;
  plural: string;
  scope?: KindScope;
  shortNames?: readonly string[];
  inAll?: boolean;
  versions: readonly KindVersion[];
}

function defineKind(spec: KindSpec): KubeVirtKind {
  return {
    group: spec.group,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    scope: spec.scope ?? "Namespaced",
    shortNames: spec.shortNames ?? [],
    categories: spec.inAll === false ? [] : ["all"],
    versions: spec.versions,
  };
}

/** kubevirt.io serves v1 (storage) and the deprecated v1alpha3, both described by the v1 definition. */
function coreVersions(definition: string): KindVersion[] {
  return [
    { name: "v1", served: true, storage: true, definition },
    {
      name: "v1alpha3",
      served: true,
      storage: false,
      deprecated: true,
      deprecationWarning: "kubevirt.io/v1alpha3 is now deprecated and will be removed in a future release.",
      definition,
    },
  ];
}

/** One served version that is also the storage version. */
function onlyVersion(name: string, definition: string): KindVersion[] {
  return [{ name, served: true, storage: true, definition }];
}

/** A still-served older version next to the storage version; the reference describes only the latter. */
function olderAndStorage(older: string, storage: string, definition: string): KindVersion[] {
  return [
    { name: older, served: true, storage: false, definition },
    { name: storage, served: true, storage: true, definition },
  ];
}

const presetWarning = (version: string) =>
  `kubevirt.io/${version} VirtualMachineInstancePresets is now deprecated and will be removed in v2.`;

export const KINDS: readonly KubeVirtKind[] = [
  defineKind({
    group: GROUPS.core,
    kind: "VirtualMachineInstance",
    plural: "virtualmachineinstances",
    shortNames: ["vmi", "vmis"],
    versions: coreVersions("v1.VirtualMachineInstance"),
  }),
  defineKind({
    group: GROUPS.core,
    kind: "VirtualMachine",
    plural: "virtualmachines",
    shortNames: ["vm", "vms"],
    versions: coreVersions("v1.VirtualMachine"),
  }),
  defineKind({
    group: GROUPS.core,
    kind: "VirtualMachineInstancePreset",
    plural: "virtualmachineinstancepresets",
    shortNames: ["vmipreset", "vmipresets"],
    // Upstream keeps v1alpha3 as the storage version of the deprecated presets.
    versions: [
      {
        name: "v1",
        served: true,
        storage: false,
        deprecated: true,
        deprecationWarning: presetWarning("v1"),
        definition: "v1.VirtualMachineInstancePreset",
      },
      {
        name: "v1alpha3",
        served: true,
        storage: true,
        deprecated: true,
        deprecationWarning: presetWarning("v1alpha3"),
        definition: "v1.VirtualMachineInstancePreset",
      },
    ],
  }),
  defineKind({
    group: GROUPS.core,
    kind: "VirtualMachineInstanceReplicaSet",
    plural: "virtualmachineinstancereplicasets",
    shortNames: ["vmirs", "vmirss"],
    versions: coreVersions("v1.VirtualMachineInstanceReplicaSet"),
  }),
  defineKind({
    group: GROUPS.core,
    kind: "VirtualMachineInstanceMigration",
    plural: "virtualmachineinstancemigrations",
    shortNames: ["vmim", "vmims"],
    versions: coreVersions("v1.VirtualMachineInstanceMigration"),
  }),
  defineKind({
    group: GROUPS.core,
    kind: "KubeVirt",
    plural: "kubevirts",
    shortNames: ["kv", "kvs"],
    versions: coreVersions("v1.KubeVirt"),
  }),
  defineKind({
    group: GROUPS.pool,
    kind: "VirtualMachinePool",
    plural: "virtualmachinepools",
    shortNames: ["vmpool", "vmpools"],
    versions: olderAndStorage("v1alpha1", "v1beta1", "v1beta1.VirtualMachinePool"),
  }),
  defineKind({
    group: GROUPS.snapshot,
    kind: "VirtualMachineSnapshot",
    plural: "virtualmachinesnapshots",
    shortNames: ["vmsnapshot", "vmsnapshots"],
    versions: olderAndStorage("v1alpha1", "v1beta1", "v1beta1.VirtualMachineSnapshot"),
  }),
  defineKind({
    group: GROUPS.snapshot,
    kind: "VirtualMachineSnapshotContent",
    plural: "virtualmachinesnapshotcontents",
    shortNames: ["vmsnapshotcontent", "vmsnapshotcontents"],
    versions: olderAndStorage("v1alpha1", "v1beta1", "v1beta1.VirtualMachineSnapshotContent"),
  }),
  defineKind({
    group: GROUPS.snapshot,
    kind: "VirtualMachineRestore",
    plural: "virtualmachinerestores",
    shortNames: ["vmrestore", "vmrestores"],
    versions: olderAndStorage("v1alpha1", "v1beta1", "v1beta1.VirtualMachineRestore"),
  }),
  defineKind({
    group: GROUPS.export,
    kind: "VirtualMachineExport",
    plural: "virtualmachineexports",
    shortNames: ["vmexport", "vmexports"],
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: false,
        deprecated: true,
        deprecationWarning:
          "export.kubevirt.io/v1beta1 VirtualMachineExport is now deprecated and will be removed in a future version.",
        definition: "v1.VirtualMachineExport",
      },
      { name: "v1", served: true, storage: true, definition: "v1.VirtualMachineExport" },
    ],
  }),
  defineKind({
    group: GROUPS.backup,
    kind: "VirtualMachineBackup",
    plural: "virtualmachinebackups",
    shortNames: ["vmbackup", "vmbackups"],
    versions: onlyVersion("v1alpha1", "v1alpha1.VirtualMachineBackup"),
  }),
  defineKind({
    group: GROUPS.backup,
    kind: "VirtualMachineBackupTracker",
    plural: "virtualmachinebackuptrackers",
    shortNames: ["vmbackuptracker", "vmbackuptrackers"],
    versions: onlyVersion("v1alpha1", "v1alpha1.VirtualMachineBackupTracker"),
  }),
  defineKind({
    group: GROUPS.instancetype,
    kind: "VirtualMachineInstancetype",
    plural: "virtualmachineinstancetypes",
    shortNames: ["vminstancetype", "vminstancetypes", "vmf", "vmfs"],
    versions: onlyVersion("v1beta1", "v1beta1.VirtualMachineInstancetype"),
  }),
  defineKind({
    group: GROUPS.instancetype,
    kind: "VirtualMachineClusterInstancetype",
    plural: "virtualmachineclusterinstancetypes",
    scope: "Cluster",
    shortNames: ["vmclusterinstancetype", "vmclusterinstancetypes", "vmcf", "vmcfs"],
    inAll: false,
    versions: onlyVersion("v1beta1", "v1beta1.VirtualMachineClusterInstancetype"),
  }),
  defineKind({
    group: GROUPS.instancetype,
    kind: "VirtualMachinePreference",
    plural: "virtualmachinepreferences",
    shortNames: ["vmpref", "vmprefs", "vmp", "vmps"],
    versions: onlyVersion("v1beta1", "v1beta1.VirtualMachinePreference"),
  }),
  defineKind({
    group: GROUPS.instancetype,
    kind: "VirtualMachineClusterPreference",
    plural: "virtualmachineclusterpreferences",
    scope: "Cluster",
    shortNames: ["vmcp", "vmcps"],
    inAll: false,
    versions: onlyVersion("v1beta1", "v1beta1.VirtualMachineClusterPreference"),
  }),
  defineKind({
    group: GROUPS.migrations,
    kind: "MigrationPolicy",
    plural: "migrationpolicies",
    scope: "Cluster",
    inAll: false,
    versions: onlyVersion("v1alpha1", "v1alpha1.MigrationPolicy"),
  }),
  defineKind({
    group: GROUPS.clone,
    kind: "VirtualMachineClone",
    plural: "virtualmachineclones",
    shortNames: ["vmclone", "vmclones"],
    versions: olderAndStorage("v1alpha1", "v1beta1", "v1beta1.VirtualMachineClone"),
  }),
];

/** The CRD's name, `<plural>.<group>`. */
export function crdName(kind: Pick<KubeVirtKind, "plural" | "group">): string {
  return `${kind.plural}.${kind.group}`;
}

export function storageVersion(kind: KubeVirtKind): KindVersion {
  const storage = kind.versions.find((v) => v.storage);
  if (storage === undefined) throw new Error(`${crdName(kind)} has no storage version`);
  return storage;
}

export function servedVersions(kind: KubeVirtKind): KindVersion[] {
  return kind.versions.filter((v) => v.served);
}

/** Lookup by URL resource: plural, singular or short name, as kubectl resolves them. */
export function kindByResource(group: string, resource: string): KubeVirtKind | undefined {
  const name = resource.toLowerCase();
  return KINDS.find(
    (k) => k.group === group && (k.plural === name || k.singular === name || k.shortNames.includes(name)),
  );
}

/** Lookup by CRD name, `<plural>.<group>`. */
export function kindByCrdName(name: string): KubeVirtKind | undefined {
  return KINDS.find((k) => crdName(k) === name);
}

export function kindByGroupKind(group: string, kind: string): KubeVirtKind | undefined {
  return KINDS.find((k) => k.group === group && k.kind === kind);
}

/** Lookup by an object's `apiVersion` and `kind`; only served versions match. */
export function kindByApiVersion(
  apiVersion: string,
  kind: string,
): { kind: KubeVirtKind; version: KindVersion } | undefined {
  const slash = apiVersion.indexOf("/");
  if (slash < 0) return undefined;
  const found = kindByGroupKind(apiVersion.slice(0, slash), kind);
  const version = found?.versions.find((v) => v.served && v.name === apiVersion.slice(slash + 1));
  return found && version ? { kind: found, version } : undefined;
}

/** The reference definition that describes `<group>/<version>` `kind`, e.g. `v1.VirtualMachine`. */
export function definitionFor(apiVersion: string, kind: string): string | undefined {
  return kindByApiVersion(apiVersion, kind)?.version.definition;
}

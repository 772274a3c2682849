// What upstream's operator adds to each CRD beyond names and schema: printer columns, subresources,
// labels and the conversion strategy. Keyed by CRD name (`<plural>.<group>`).
import type { CustomResourceColumnDefinition, CustomResourceSubresources } from "./crd-types.js";

export interface CrdDetails {
  columns?: CustomResourceColumnDefinition[];
  subresources?: CustomResourceSubresources;
  /** Upstream spells out `conversion: {strategy: None}` on some CRDs; the apiserver defaults it elsewhere. */
  noneConversion?: boolean;
  labels?: Record<string, string>;
}

/** Every kubevirt CRD carries the app label `kubevirt.io`; the KubeVirt CRD the operator's own label. */
export const DEFAULT_CRD_LABELS: Readonly<Record<string, string>> = { "kubevirt.io": "" };

const AGE = column("Age", "date", ".metadata.creationTimestamp");
const PHASE = column("Phase", "string", ".status.phase");
const ERROR = column("Error", "string", ".status.error.message");
const READY_TO_USE = column("ReadyToUse", "boolean", ".status.readyToUse");
const CREATION_TIME = column("CreationTime", "date", ".status.creationTime");
const SOURCE_KIND = column("SourceKind", "string", ".spec.source.kind");
const SOURCE_NAME = column("SourceName", "string", ".spec.source.name");

function column(
  name: string,
  type: CustomResourceColumnDefinition["type"],
  jsonPath: string,
  extra: Pick<CustomResourceColumnDefinition, "description" | "priority"> = {},
): CustomResourceColumnDefinition {
  return { name, type, jsonPath, ...extra };
}

function conditionStatus(type: string): string {
  return `.status.conditions[?(@.type=='${type}')].status`;
}

const STATUS: CustomResourceSubresources = { status: {} };

/** Status plus a scale subresource whose selector the controllers publish in `.status.labelSelector`. */
const STATUS_AND_SCALE: CustomResourceSubresources = {
  status: {},
  scale: {
    specReplicasPath: ".spec.replicas",
    statusReplicasPath: ".status.replicas",
    labelSelectorPath: ".status.labelSelector",
  },
};

/** Desired/Current/Ready/Age of a replicated kind; `what` names the managed objects. */
function replicaColumns(what: string): CustomResourceColumnDefinition[] {
  return [
    column("Desired", "integer", ".spec.replicas", { description: `Number of desired ${what}` }),
    column("Current", "integer", ".status.replicas", {
      description: `Number of managed and not final or deleted ${what}`,
    }),
    column("Ready", "integer", ".status.readyReplicas", {
      description: `Number of managed ${what} which are ready to receive traffic`,
    }),
    AGE,
  ];
}

export const CRD_DETAILS: Readonly<Record<string, CrdDetails>> = {
  // Upstream's VMI CRD has no status subresource: status is written through the main resource.
  "virtualmachineinstances.kubevirt.io": {
    columns: [
      AGE,
      PHASE,
      column("IP", "string", ".status.interfaces[0].ipAddress"),
      column("NodeName", "string", ".status.nodeName"),
      column("Ready", "string", conditionStatus("Ready")),
      column("Live-Migratable", "string", conditionStatus("LiveMigratable"), { priority: 1 }),
      column("Paused", "string", conditionStatus("Paused"), { priority: 1 }),
    ],
  },
  "virtualmachines.kubevirt.io": {
    columns: [
      AGE,
      column("Status", "string", ".status.printableStatus", { description: "Human Readable Status" }),
      column("Ready", "string", conditionStatus("Ready")),
    ],
    subresources: STATUS,
  },
  "virtualmachineinstancepresets.kubevirt.io": {},
  "virtualmachineinstancereplicasets.kubevirt.io": {
    columns: replicaColumns("VirtualMachineInstances"),
    subresources: STATUS_AND_SCALE,
  },
  "virtualmachineinstancemigrations.kubevirt.io": {
    columns: [
      { ...PHASE, description: "The current phase of VM instance migration" },
      column("VMI", "string", ".spec.vmiName", {
        description: "The name of the VMI to perform the migration on",
      }),
    ],
    subresources: STATUS,
  },
  "kubevirts.kubevirt.io": {
    columns: [AGE, PHASE],
    subresources: STATUS,
    labels: { "operator.kubevirt.io": "" },
  },
  "virtualmachinepools.pool.kubevirt.io": {
    columns: replicaColumns("VirtualMachines"),
    subresources: STATUS_AND_SCALE,
  },
  "virtualmachinesnapshots.snapshot.kubevirt.io": {
    columns: [SOURCE_KIND, SOURCE_NAME, PHASE, READY_TO_USE, CREATION_TIME, ERROR],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachinesnapshotcontents.snapshot.kubevirt.io": {
    columns: [READY_TO_USE, CREATION_TIME, ERROR],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachinerestores.snapshot.kubevirt.io": {
    columns: [
      column("TargetKind", "string", ".spec.target.kind"),
      column("TargetName", "string", ".spec.target.name"),
      column("Complete", "boolean", ".status.complete"),
      column("RestoreTime", "date", ".status.restoreTime"),
    ],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachineexports.export.kubevirt.io": {
    columns: [SOURCE_KIND, SOURCE_NAME, PHASE],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachinebackups.backup.kubevirt.io": {
    columns: [
      SOURCE_KIND,
      SOURCE_NAME,
      column("Type", "string", ".status.type"),
      column("CheckpointName", "string", ".status.checkpointName"),
    ],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachinebackuptrackers.backup.kubevirt.io": {
    columns: [
      SOURCE_KIND,
      SOURCE_NAME,
      column("LatestCheckpoint", "string", ".status.latestCheckpoint.name"),
      column("CheckpointTime", "date", ".status.latestCheckpoint.creationTime"),
    ],
    subresources: STATUS,
    noneConversion: true,
  },
  "virtualmachineinstancetypes.instancetype.kubevirt.io": { noneConversion: true },
  "virtualmachineclusterinstancetypes.instancetype.kubevirt.io": { noneConversion: true },
  "virtualmachinepreferences.instancetype.kubevirt.io": { noneConversion: true },
  "virtualmachineclusterpreferences.instancetype.kubevirt.io": { noneConversion: true },
  "migrationpolicies.migrations.kubevirt.io": { subresources: STATUS },
  "virtualmachineclones.clone.kubevirt.io": {
    columns: [
      PHASE,
      column("SourceVirtualMachine", "string", ".spec.source.name"),
      column("TargetVirtualMachine", "string", ".spec.target.name"),
    ],
    subresources: STATUS,
  },
};

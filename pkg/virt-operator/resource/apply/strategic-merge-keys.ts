// The merge keys of the lists a strategic merge patch merges, for the kinds customizeComponents patches
// (upstream reads them from the `patchMergeKey` tags of the k8s.io/api types). Written out by hand since
// no TypeScript library carries those tags; only the lists of these kinds that upstream's types merge.
import type { MergeKeys } from "../../../apimachinery/patch/strategic-merge-patch.js";

const OBJECT_META: MergeKeys = { "metadata.ownerReferences": "uid" };

function podSpecKeys(prefix: string): MergeKeys {
  const container = (field: string): MergeKeys => ({
    [`${prefix}.${field}`]: "name",
    [`${prefix}.${field}.env`]: "name",
    [`${prefix}.${field}.ports`]: "containerPort",
    [`${prefix}.${field}.volumeMounts`]: "mountPath",
    [`${prefix}.${field}.volumeDevices`]: "devicePath",
  });
  return {
    ...container("containers"),
    ...container("initContainers"),
    ...container("ephemeralContainers"),
    [`${prefix}.volumes`]: "name",
    [`${prefix}.imagePullSecrets`]: "name",
    [`${prefix}.hostAliases`]: "ip",
    [`${prefix}.topologySpreadConstraints`]: "topologyKey",
    [`${prefix}.resourceClaims`]: "name",
    [`${prefix}.schedulingGates`]: "name",
  };
}

const WORKLOAD: MergeKeys = { ...OBJECT_META, ...podSpecKeys("spec.template.spec") };
const WEBHOOK_CONFIGURATION: MergeKeys = { ...OBJECT_META, webhooks: "name" };

const BY_KIND: Readonly<Record<string, MergeKeys>> = {
  deployment: WORKLOAD,
  daemonset: WORKLOAD,
  service: { ...OBJECT_META, "spec.ports": "port" },
  validatingwebhookconfiguration: WEBHOOK_CONFIGURATION,
  mutatingwebhookconfiguration: WEBHOOK_CONFIGURATION,
};

export function strategicMergeKeysOf(kind: string | undefined): MergeKeys {
  return BY_KIND[(kind ?? "").toLowerCase()] ?? OBJECT_META;
}

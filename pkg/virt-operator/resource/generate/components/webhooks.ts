// The admission webhook configurations the operator installs (upstream's components/webhooks.go): virt-api's
// mutator and validator, and virt-operator's own validator for the KubeVirt CR. All fail closed. Upstream's
// webhooks for kinds this port has no CRD for (plugins) and the feature-gated
// virt-launcher pod mutator are left out.
import type { V1MatchCondition, V1MutatingWebhook, V1ValidatingWebhook } from "@kubernetes/client-node";
import { GROUPS } from "../../../../api/kinds.js";
import {
  APP_LABEL,
  CERTIFICATES_SECRET_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_OPERATOR,
} from "../../../util/labels.js";
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from "./k8s-types.js";
import * as names from "./names.js";

const TIMEOUT_SECONDS = 10;
/** The kubevirt.io versions virt-api's webhooks register for. */
const CORE_VERSIONS = ["v1alpha3", "v1"];
type Operation = "CREATE" | "UPDATE" | "DELETE" | "*";

interface WebhookRow {
  name: string;
  path: string;
  group: string;
  versions: string[];
  resources: string[];
  operations: Operation[];
  sideEffects?: "None" | "NoneOnDryRun";
  reviewVersions?: string[];
  matchConditions?: V1MatchCondition[];
}

const core = (name: string, path: string, resources: string[], operations: Operation[]): WebhookRow => ({
  name,
  path,
  group: GROUPS.core,
  versions: CORE_VERSIONS,
  resources,
  operations,
});

const inGroup =
  (group: string, version: string) =>
  (name: string, path: string, resource: string): WebhookRow => ({
    name,
    path,
    group,
    versions: [version],
    resources: [resource],
    operations: ["CREATE", "UPDATE"],
  });

const snapshot = inGroup(GROUPS.snapshot, "v1beta1");
const instancetype = inGroup(GROUPS.instancetype, "v1beta1");

function evictionInterceptor(
  name: string,
  condition: V1MatchCondition,
  reviewVersions: string[],
): WebhookRow {
  return {
    name,
    path: names.POD_EVICTION_VALIDATE_PATH,
    group: "",
    versions: ["v1"],
    resources: ["pods/eviction"],
    operations: ["*"],
    sideEffects: "NoneOnDryRun",
    reviewVersions,
    matchConditions: [condition],
  };
}

/** virt-api-validator's webhooks, in upstream's order. */
export const VIRT_API_VALIDATING_WEBHOOKS: readonly WebhookRow[] = [
  evictionInterceptor(
    "virt-launcher-eviction-interceptor.kubevirt.io",
    { name: "only-vms", expression: 'object.metadata.name.startsWith("virt-launcher")' },
    ["v1"],
  ),
  evictionInterceptor(
    "hotplug-pod-eviction-interceptor.kubevirt.io",
    { name: "only-hotplug-pods", expression: 'object.metadata.name.startsWith("hp-volume-")' },
    ["v1", "v1beta1"],
  ),
  core(
    "virtualmachineinstances-create-validator.kubevirt.io",
    names.VMI_CREATE_VALIDATE_PATH,
    ["virtualmachineinstances"],
    ["CREATE"],
  ),
  core(
    "virtualmachineinstances-update-validator.kubevirt.io",
    names.VMI_UPDATE_VALIDATE_PATH,
    ["virtualmachineinstances"],
    ["UPDATE"],
  ),
  core(
    "virtualmachine-validator.kubevirt.io",
    names.VM_VALIDATE_PATH,
    ["virtualmachines"],
    ["CREATE", "UPDATE"],
  ),
  core(
    "virtualmachinereplicaset-validator.kubevirt.io",
    names.VMIRS_VALIDATE_PATH,
    ["virtualmachineinstancereplicasets"],
    ["CREATE", "UPDATE"],
  ),
  inGroup(GROUPS.pool, "v1beta1")(
    "virtualmachinepool-validator.kubevirt.io",
    names.VMPOOL_VALIDATE_PATH,
    "virtualmachinepools",
  ),
  core(
    "virtualmachinepreset-validator.kubevirt.io",
    names.VMIPRESET_VALIDATE_PATH,
    ["virtualmachineinstancepresets"],
    ["CREATE", "UPDATE"],
  ),
  core(
    "migration-create-validator.kubevirt.io",
    names.MIGRATION_CREATE_VALIDATE_PATH,
    ["virtualmachineinstancemigrations"],
    ["CREATE"],
  ),
  core(
    "migration-update-validator.kubevirt.io",
    names.MIGRATION_UPDATE_VALIDATE_PATH,
    ["virtualmachineinstancemigrations"],
    ["UPDATE"],
  ),
  snapshot(
    "virtualmachinesnapshot-validator.snapshot.kubevirt.io",
    names.VM_SNAPSHOT_VALIDATE_PATH,
    "virtualmachinesnapshots",
  ),
  snapshot(
    "virtualmachinerestore-validator.snapshot.kubevirt.io",
    names.VM_RESTORE_VALIDATE_PATH,
    "virtualmachinerestores",
  ),
  inGroup(GROUPS.backup, "v1alpha1")(
    "virtualmachinebackup-validator.backup.kubevirt.io",
    names.VM_BACKUP_VALIDATE_PATH,
    "virtualmachinebackups",
  ),
  inGroup(GROUPS.backup, "v1alpha1")(
    "virtualmachinebackuptracker-validator.backup.kubevirt.io",
    names.VM_BACKUP_TRACKER_VALIDATE_PATH,
    "virtualmachinebackuptrackers",
  ),
  inGroup(GROUPS.export, "v1")(
    "virtualmachineexport-validator.export.kubevirt.io",
    names.VM_EXPORT_VALIDATE_PATH,
    "virtualmachineexports",
  ),
  instancetype(
    "virtualmachineinstancetype-validator.instancetype.kubevirt.io",
    names.VM_INSTANCETYPE_VALIDATE_PATH,
    "virtualmachineinstancetypes",
  ),
  instancetype(
    "virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io",
    names.VM_CLUSTER_INSTANCETYPE_VALIDATE_PATH,
    "virtualmachineclusterinstancetypes",
  ),
  instancetype(
    "virtualmachinepreference-validator.instancetype.kubevirt.io",
    names.VM_PREFERENCE_VALIDATE_PATH,
    "virtualmachinepreferences",
  ),
  instancetype(
    "virtualmachineclusterpreference-validator.instancetype.kubevirt.io",
    names.VM_CLUSTER_PREFERENCE_VALIDATE_PATH,
    "virtualmachineclusterpreferences",
  ),
  core(
    "kubevirt-crd-status-validator.kubevirt.io",
    names.STATUS_VALIDATE_PATH,
    [
      "virtualmachines/status",
      "virtualmachineinstancereplicasets/status",
      "virtualmachineinstancemigrations/status",
    ],
    ["CREATE", "UPDATE"],
  ),
  inGroup(GROUPS.migrations, "v1alpha1")(
    "migration-policy-validator.kubevirt.io",
    names.MIGRATION_POLICY_CREATE_VALIDATE_PATH,
    "migrationpolicies",
  ),
  inGroup(GROUPS.clone, "v1beta1")(
    "vm-clone-validator.kubevirt.io",
    names.VM_CLONE_CREATE_VALIDATE_PATH,
    "virtualmachineclones",
  ),
];

/** virt-api-mutator's webhooks, in upstream's order. */
export const VIRT_API_MUTATING_WEBHOOKS: readonly WebhookRow[] = [
  core(
    "virtualmachines-mutator.kubevirt.io",
    names.VM_MUTATE_PATH,
    ["virtualmachines"],
    ["CREATE", "UPDATE"],
  ),
  core(
    "virtualmachineinstances-mutator.kubevirt.io",
    names.VMI_MUTATE_PATH,
    ["virtualmachineinstances"],
    ["CREATE", "UPDATE"],
  ),
  core(
    "migrations-mutator.kubevirt.io",
    names.MIGRATION_MUTATE_PATH,
    ["virtualmachineinstancemigrations"],
    ["CREATE"],
  ),
  {
    ...inGroup(GROUPS.clone, "v1beta1")(
      "virtualmachineclones-mutator.kubevirt.io",
      names.VM_CLONE_CREATE_MUTATE_PATH,
      "virtualmachineclones",
    ),
    operations: ["CREATE"],
  },
];

/** virt-operator-validator's webhooks: the KubeVirt CR's delete, update and create. */
export const OPERATOR_VALIDATING_WEBHOOKS: readonly WebhookRow[] = [
  core("kubevirt-validator.kubevirt.io", names.KUBEVIRT_DELETE_VALIDATE_PATH, ["kubevirts"], ["DELETE"]),
  core(
    "kubevirt-update-validator.kubevirt.io",
    names.KUBEVIRT_UPDATE_VALIDATE_PATH,
    ["kubevirts"],
    ["UPDATE"],
  ),
  core(
    "kubevirt-create-validator.kubevirt.io",
    names.KUBEVIRT_CREATE_VALIDATE_PATH,
    ["kubevirts"],
    ["CREATE"],
  ),
];

function webhook(row: WebhookRow, service: { namespace: string; name: string }): V1ValidatingWebhook {
  const out: V1ValidatingWebhook = {
    name: row.name,
    admissionReviewVersions: row.reviewVersions ?? ["v1"],
    sideEffects: row.sideEffects ?? "None",
    failurePolicy: "Fail",
    timeoutSeconds: TIMEOUT_SECONDS,
    rules: [
      {
        operations: row.operations,
        apiGroups: [row.group],
        apiVersions: row.versions,
        resources: row.resources,
      },
    ],
    clientConfig: { service: { ...service, path: row.path } },
  };
  if (row.matchConditions) out.matchConditions = row.matchConditions;
  return out;
}

function metadata(name: string, certificatesSecret: string, managed: boolean) {
  return {
    name,
    labels: { [APP_LABEL]: name, ...(managed ? { [MANAGED_BY_LABEL]: MANAGED_BY_OPERATOR } : {}) },
    annotations: { [CERTIFICATES_SECRET_ANNOTATION]: certificatesSecret },
  };
}

export function newVirtApiValidatingWebhookConfiguration(
  installNamespace: string,
): ValidatingWebhookConfiguration {
  const service = { namespace: installNamespace, name: names.VIRT_API_SERVICE };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: metadata(names.VIRT_API_VALIDATING_WEBHOOK, names.VIRT_API_CERT_SECRET, true),
    webhooks: VIRT_API_VALIDATING_WEBHOOKS.map((row) => webhook(row, service)),
  };
}

export function newVirtApiMutatingWebhookConfiguration(
  installNamespace: string,
): MutatingWebhookConfiguration {
  const service = { namespace: installNamespace, name: names.VIRT_API_SERVICE };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: metadata(names.VIRT_API_MUTATING_WEBHOOK, names.VIRT_API_CERT_SECRET, true),
    webhooks: VIRT_API_MUTATING_WEBHOOKS.map((row): V1MutatingWebhook => webhook(row, service)),
  };
}

export function newOperatorValidatingWebhookConfiguration(
  operatorNamespace: string,
): ValidatingWebhookConfiguration {
  const service = { namespace: operatorNamespace, name: names.OPERATOR_WEBHOOK_SERVICE };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: metadata(names.VIRT_OPERATOR_VALIDATING_WEBHOOK, names.VIRT_OPERATOR_CERT_SECRET, false),
    webhooks: OPERATOR_VALIDATING_WEBHOOKS.map((row) => webhook(row, service)),
  };
}

export interface NewCustomResource {
  group: string;
  plural: string;
  crdName: string;
}

/**
 * Upstream's placeholder webhook: refuses creating objects of CRDs that are new in this install until
 * virt-api serves, by pointing at a Service that does not exist. The CA only has to parse.
 */
export function newDummyValidatingWebhookConfiguration(
  namespace: string,
  crds: readonly NewCustomResource[],
  caBundle: string,
): ValidatingWebhookConfiguration {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { generateName: names.DUMMY_WEBHOOK_PREFIX },
    webhooks: crds.map((crd) => ({
      name: `${crd.crdName}-tmp-validator`,
      admissionReviewVersions: ["v1", "v1beta1"],
      sideEffects: "None",
      failurePolicy: "Fail",
      rules: [
        {
          operations: ["CREATE"],
          apiGroups: [crd.group],
          apiVersions: CORE_VERSIONS,
          resources: [crd.plural],
        },
      ],
      clientConfig: {
        service: { namespace, name: "fake-validation-service", path: `/fake-path/${crd.crdName}` },
        caBundle,
      },
    })),
  };
}

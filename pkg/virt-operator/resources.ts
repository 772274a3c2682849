// Every resource kind virt-operator installs or watches, addressed the machinery's way. The keys name the
// operator's stores and expectations (upstream's util.Stores / util.Expectations fields).
import type { GroupVersionResource } from "../controller/gvr.js";

function gvr(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): GroupVersionResource {
  return { group, version, resource, kind, namespaced };
}

const RBAC = "rbac.authorization.k8s.io";
const ADMISSION = "admissionregistration.k8s.io";

export const OPERATOR_RESOURCES = {
  serviceAccounts: gvr("", "v1", "serviceaccounts", "ServiceAccount", true),
  clusterRoles: gvr(RBAC, "v1", "clusterroles", "ClusterRole", false),
  clusterRoleBindings: gvr(RBAC, "v1", "clusterrolebindings", "ClusterRoleBinding", false),
  roles: gvr(RBAC, "v1", "roles", "Role", true),
  roleBindings: gvr(RBAC, "v1", "rolebindings", "RoleBinding", true),
  crds: gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false),
  services: gvr("", "v1", "services", "Service", true),
  deployments: gvr("apps", "v1", "deployments", "Deployment", true),
  daemonSets: gvr("apps", "v1", "daemonsets", "DaemonSet", true),
  validatingWebhooks: gvr(
    ADMISSION,
    "v1",
    "validatingwebhookconfigurations",
    "ValidatingWebhookConfiguration",
    false,
  ),
  mutatingWebhooks: gvr(
    ADMISSION,
    "v1",
    "mutatingwebhookconfigurations",
    "MutatingWebhookConfiguration",
    false,
  ),
  apiServices: gvr("apiregistration.k8s.io", "v1", "apiservices", "APIService", false),
  podDisruptionBudgets: gvr("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true),
  secrets: gvr("", "v1", "secrets", "Secret", true),
  configMaps: gvr("", "v1", "configmaps", "ConfigMap", true),
} as const satisfies Record<string, GroupVersionResource>;

export type OperatorResource = keyof typeof OPERATOR_RESOURCES;

/**
 * The common-instancetypes kinds the operator deploys (upstream's ClusterInstancetype/ClusterPreference
 * stores). Kept apart from OPERATOR_RESOURCES: their CRDs are part of the install, so an informer on them
 * could not sync before the operator's first pass; the reconcile lists them from the server instead.
 */
export const COMMON_INSTANCETYPE_RESOURCES = {
  clusterInstancetypes: gvr(
    "instancetype.kubevirt.io",
    "v1beta1",
    "virtualmachineclusterinstancetypes",
    "VirtualMachineClusterInstancetype",
    false,
  ),
  clusterPreferences: gvr(
    "instancetype.kubevirt.io",
    "v1beta1",
    "virtualmachineclusterpreferences",
    "VirtualMachineClusterPreference",
    false,
  ),
} as const satisfies Record<string, GroupVersionResource>;

/** Resources the operator watches without installing them. */
export const WATCHED_RESOURCES = {
  kubevirts: gvr("kubevirt.io", "v1", "kubevirts", "KubeVirt", true),
  /** The infrastructure pods, whose readiness decides Available. */
  pods: gvr("", "v1", "pods", "Pod", true),
  nodes: gvr("", "v1", "nodes", "Node", false),
  virtualMachineInstances: gvr(
    "kubevirt.io",
    "v1",
    "virtualmachineinstances",
    "VirtualMachineInstance",
    true,
  ),
  virtualMachines: gvr("kubevirt.io", "v1", "virtualmachines", "VirtualMachine", true),
  virtualMachineInstanceReplicaSets: gvr(
    "kubevirt.io",
    "v1",
    "virtualmachineinstancereplicasets",
    "VirtualMachineInstanceReplicaSet",
    true,
  ),
} as const satisfies Record<string, GroupVersionResource>;

/** Installed kinds in the order upstream deletes them on uninstall (CRDs are handled first, apart). */
export const DELETION_ORDER: readonly OperatorResource[] = [
  "daemonSets",
  "podDisruptionBudgets",
  "deployments",
  "validatingWebhooks",
  "mutatingWebhooks",
  "apiServices",
  "services",
  "clusterRoleBindings",
  "clusterRoles",
  "roleBindings",
  "roles",
  "serviceAccounts",
  "secrets",
  "configMaps",
];

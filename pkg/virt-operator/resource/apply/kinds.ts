// Per kind: which fields the operator owns and how it patches them (upstream's rbac.go, crds.go,
// admissionregistration.go, apiservices.go, apps.go).
import type { KubeObject } from "../../../controller/object.js";
import type { CustomResourceDefinition } from "../generate/components/crds.js";
import type {
  APIService,
  ClusterRole,
  ClusterRoleBinding,
  DaemonSet,
  Deployment,
  MutatingWebhookConfiguration,
  PodDisruptionBudget,
  Role,
  RoleBinding,
  ServiceAccount,
  ValidatingWebhookConfiguration,
} from "../generate/components/k8s-types.js";
import type { KindRules } from "./apply.js";
import { containsDesired } from "./compare.js";

const replace = (path: string, value: unknown) => [{ op: "replace" as const, path, value }];

export const serviceAccountRules: KindRules<ServiceAccount> = {
  resource: "serviceAccounts",
  upToDate: () => true,
  patchOps: () => [],
  trackGeneration: false,
};

function roleRules<T extends ClusterRole | Role>(resource: "clusterRoles" | "roles"): KindRules<T> {
  return {
    resource,
    upToDate: (existing, desired) => containsDesired(existing.rules, desired.rules),
    patchOps: (desired) => replace("/rules", desired.rules),
    trackGeneration: false,
  };
}

function bindingRules<T extends ClusterRoleBinding | RoleBinding>(
  resource: "clusterRoleBindings" | "roleBindings",
): KindRules<T> {
  return {
    resource,
    upToDate: (existing, desired) =>
      containsDesired(existing.roleRef, desired.roleRef) &&
      containsDesired(existing.subjects, desired.subjects),
    // roleRef cannot change; a binding to another role is an upstream upgrade case this port does not have.
    patchOps: (desired) => replace("/subjects", desired.subjects),
    trackGeneration: false,
  };
}

export const clusterRoleRules = roleRules<ClusterRole>("clusterRoles");
export const roleRulesOf = roleRules<Role>("roles");
export const clusterRoleBindingRules = bindingRules<ClusterRoleBinding>("clusterRoleBindings");
export const roleBindingRules = bindingRules<RoleBinding>("roleBindings");

/** Kinds whose spec the operator owns entirely, re-applied whenever their generation moved. */
function specRules<T extends KubeObject & { spec: unknown }>(
  resource: "crds" | "deployments" | "daemonSets" | "podDisruptionBudgets",
  upToDate: (existing: T, desired: T) => boolean = () => true,
): KindRules<T> {
  return { resource, upToDate, patchOps: (desired) => replace("/spec", desired.spec), trackGeneration: true };
}

export const crdRules = specRules<CustomResourceDefinition & KubeObject>("crds");
export const deploymentRules = specRules<Deployment>(
  "deployments",
  (existing, desired) => existing.spec.replicas === desired.spec.replicas,
);
export const daemonSetRules = specRules<DaemonSet>("daemonSets");
export const podDisruptionBudgetRules = specRules<PodDisruptionBudget>(
  "podDisruptionBudgets",
  (existing, desired) => existing.spec.minAvailable === desired.spec.minAvailable,
);

function webhookRules<T extends ValidatingWebhookConfiguration | MutatingWebhookConfiguration>(
  resource: "validatingWebhooks" | "mutatingWebhooks",
): KindRules<T> {
  return {
    resource,
    // A rotated CA changes every webhook's caBundle without touching the generation.
    upToDate: (existing, desired) =>
      existing.webhooks.length === desired.webhooks.length &&
      existing.webhooks.every(
        (w, i) => w.clientConfig.caBundle === desired.webhooks[i]?.clientConfig.caBundle,
      ),
    patchOps: (desired) => replace("/webhooks", desired.webhooks),
    trackGeneration: true,
    adopt: true,
  };
}

export const validatingWebhookRules = webhookRules<ValidatingWebhookConfiguration>("validatingWebhooks");
export const mutatingWebhookRules = webhookRules<MutatingWebhookConfiguration>("mutatingWebhooks");

export const apiServiceRules: KindRules<APIService> = {
  resource: "apiServices",
  upToDate: (existing, desired) =>
    containsDesired(existing.spec.service, desired.spec.service) &&
    existing.spec.caBundle === desired.spec.caBundle &&
    existing.spec.groupPriorityMinimum === desired.spec.groupPriorityMinimum &&
    existing.spec.versionPriority === desired.spec.versionPriority &&
    (existing.spec.insecureSkipTLSVerify ?? false) === (desired.spec.insecureSkipTLSVerify ?? false),
  patchOps: (desired) => replace("/spec", desired.spec),
  trackGeneration: false,
  adopt: true,
};

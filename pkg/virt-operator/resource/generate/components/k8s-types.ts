// The Kubernetes objects virt-operator installs, as they travel on the wire. Top-level metadata is the
// machinery's KubeObject (so informers and clients take them); nested specs reuse client-node's models.
import type {
  AdmissionregistrationV1WebhookClientConfig,
  RbacV1Subject,
  V1APIServiceSpec,
  V1APIServiceStatus,
  V1DaemonSetSpec,
  V1DaemonSetStatus,
  V1DeploymentSpec,
  V1DeploymentStatus,
  V1MutatingWebhook,
  V1PodDisruptionBudgetSpec,
  V1PolicyRule,
  V1RoleRef,
  V1ServiceSpec,
  V1ValidatingWebhook,
} from "@kubernetes/client-node";
import type { KubeObject } from "../../../../controller/object.js";

export type { V1PodSpec as PodSpec, V1PolicyRule as PolicyRule } from "@kubernetes/client-node";
export type { V1Container as Container, V1PodTemplateSpec as PodTemplateSpec } from "@kubernetes/client-node";

export interface Namespace extends KubeObject {
  kind: "Namespace";
}

export interface ServiceAccount extends KubeObject {
  kind: "ServiceAccount";
}

export interface ClusterRole extends KubeObject {
  kind: "ClusterRole";
  rules: V1PolicyRule[];
}

export interface Role extends KubeObject {
  kind: "Role";
  rules: V1PolicyRule[];
}

export interface ClusterRoleBinding extends KubeObject {
  kind: "ClusterRoleBinding";
  roleRef: V1RoleRef;
  subjects: RbacV1Subject[];
}

export interface RoleBinding extends KubeObject {
  kind: "RoleBinding";
  roleRef: V1RoleRef;
  subjects: RbacV1Subject[];
}

export interface Service extends KubeObject {
  kind: "Service";
  spec: V1ServiceSpec;
}

export interface Deployment extends KubeObject {
  kind: "Deployment";
  spec: V1DeploymentSpec;
  status?: V1DeploymentStatus;
}

export interface DaemonSet extends KubeObject {
  kind: "DaemonSet";
  spec: V1DaemonSetSpec;
  status?: V1DaemonSetStatus;
}

/** The one core/v1 Pod type of the repository. */
export type { Pod } from "../../../../api/core/v1/pod.js";

export interface PodDisruptionBudget extends KubeObject {
  kind: "PodDisruptionBudget";
  spec: V1PodDisruptionBudgetSpec;
}

export interface Secret extends KubeObject {
  kind: "Secret";
  type?: string;
  /** Base64, as on the wire. */
  data?: Record<string, string>;
}

export interface ConfigMap extends KubeObject {
  kind: "ConfigMap";
  data?: Record<string, string>;
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  kind: "ValidatingWebhookConfiguration";
  webhooks: V1ValidatingWebhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  kind: "MutatingWebhookConfiguration";
  webhooks: V1MutatingWebhook[];
}

export type WebhookClientConfig = AdmissionregistrationV1WebhookClientConfig;

export interface APIService extends KubeObject {
  kind: "APIService";
  spec: V1APIServiceSpec;
  status?: V1APIServiceStatus;
}

export interface PriorityClass extends KubeObject {
  kind: "PriorityClass";
  value: number;
  globalDefault: boolean;
  description: string;
}

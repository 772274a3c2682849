// Builders for RBAC objects, so each component's file reads as its list of rules.
import type { PolicyRule } from "../components/k8s-types.js";
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  ServiceAccount,
} from "../components/k8s-types.js";
import { APP_LABEL } from "../../../util/labels.js";

export const RBAC_GROUP = "rbac.authorization.k8s.io";
const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

/** The usual full set of verbs on an object a role administers. */
export const ALL_VERBS = ["get", "delete", "create", "update", "patch", "list", "watch", "deletecollection"];
export const EDIT_VERBS = ["get", "delete", "create", "update", "patch", "list", "watch"];
export const READ_VERBS = ["get", "list", "watch"];

export function rule(
  apiGroups: string[],
  resources: string[],
  verbs: string[],
  resourceNames?: string[],
): PolicyRule {
  return resourceNames ? { apiGroups, resources, resourceNames, verbs } : { apiGroups, resources, verbs };
}

const appLabels = (extra: Record<string, string> = {}) => ({ [APP_LABEL]: "", ...extra });

export function serviceAccount(namespace: string, name: string): ServiceAccount {
  return { apiVersion: "v1", kind: "ServiceAccount", metadata: { namespace, name, labels: appLabels() } };
}

export function clusterRole(
  name: string,
  rules: PolicyRule[],
  labels: Record<string, string> = {},
  annotations?: Record<string, string>,
): ClusterRole {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRole",
    metadata: { name, labels: appLabels(labels), ...(annotations ? { annotations } : {}) },
    rules,
  };
}

export function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "Role",
    metadata: { namespace, name, labels: appLabels() },
    rules,
  };
}

type Subject = { kind: "ServiceAccount"; namespace: string; name: string } | { kind: "Group"; name: string };

function subjectOf(subject: Subject) {
  return subject.kind === "Group" ? { kind: "Group", apiGroup: RBAC_GROUP, name: subject.name } : subject;
}

export function clusterRoleBinding(
  name: string,
  roleName: string,
  subject: Subject,
  annotations?: Record<string, string>,
): ClusterRoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRoleBinding",
    metadata: { name, labels: appLabels(), ...(annotations ? { annotations } : {}) },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: roleName },
    subjects: [subjectOf(subject)],
  };
}

export function roleBinding(
  namespace: string,
  name: string,
  roleName: string,
  subject: Subject,
): RoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "RoleBinding",
    metadata: { namespace, name, labels: appLabels() },
    roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: roleName },
    subjects: [subjectOf(subject)],
  };
}

/** The RBAC objects of one component, kind by kind. */
export interface RbacSet {
  serviceAccounts: ServiceAccount[];
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
}

export function rbacSet(parts: Partial<RbacSet>): RbacSet {
  return {
    serviceAccounts: parts.serviceAccounts ?? [],
    clusterRoles: parts.clusterRoles ?? [],
    clusterRoleBindings: parts.clusterRoleBindings ?? [],
    roles: parts.roles ?? [],
    roleBindings: parts.roleBindings ?? [],
  };
}

export function mergeRbac(sets: RbacSet[]): RbacSet {
  return rbacSet({
    serviceAccounts: sets.flatMap((s) => s.serviceAccounts),
    clusterRoles: sets.flatMap((s) => s.clusterRoles),
    clusterRoleBindings: sets.flatMap((s) => s.clusterRoleBindings),
    roles: sets.flatMap((s) => s.roles),
    roleBindings: sets.flatMap((s) => s.roleBindings),
  });
}

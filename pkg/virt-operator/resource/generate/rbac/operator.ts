// virt-operator's own RBAC, shipped in kubevirt-operator.yaml (upstream's rbac/operator.go and the
// kubevirt.io:operator role of the manifest template). The operator may only grant what it holds, so its
// roles carry its own rules plus every rule of the roles it installs.
import { GROUPS } from "../../../../api/kinds.js";
import type { ClusterRole, PolicyRule } from "../components/k8s-types.js";
import {
  KUBEVIRT_CA_SECRET,
  OPERATOR_SERVICE_ACCOUNT,
  VIRT_API_CERT_SECRET,
  VIRT_CONTROLLER_CERT_SECRET,
  VIRT_HANDLER_CLIENT_CERT_SECRET,
  VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET,
  VIRT_HANDLER_SERVER_CERT_SECRET,
  VIRT_OPERATOR_CERT_SECRET,
} from "../components/names.js";
import { allClusterRbac } from "./cluster.js";
import { apiServerRbac, controllerRbac, handlerRbac } from "./components.js";
import type { RbacSet } from "./rbac-objects.js";
import {
  ALL_VERBS,
  RBAC_GROUP,
  clusterRole,
  clusterRoleBinding,
  mergeRbac,
  rbacSet,
  role,
  roleBinding,
  rule,
  serviceAccount,
} from "./rbac-objects.js";

const SECURITY_GROUP = "security.openshift.io";
const ROUTE_GROUP = "route.openshift.io";

/** The RBAC of every component the operator installs; their namespace does not matter for the rules. */
export function installedRbac(namespace: string): RbacSet {
  return mergeRbac([
    allClusterRbac(),
    apiServerRbac(namespace),
    controllerRbac(namespace),
    handlerRbac(namespace),
  ]);
}

function operatorClusterRules(): PolicyRule[] {
  const manage = ["get", "list", "watch", "create", "delete", "patch"];
  const own: PolicyRule[] = [
    rule([GROUPS.core], ["kubevirts"], ["get", "list", "watch", "patch", "update"]),
    rule(
      [""],
      ["serviceaccounts", "services", "endpoints", "pods/exec"],
      ["get", "list", "watch", "create", "update", "delete", "patch"],
    ),
    rule([""], ["configmaps"], ["patch", "delete"]),
    rule(["batch"], ["jobs"], manage),
    rule(["apps"], ["controllerrevisions"], ["watch", "list", "create", "delete", "patch"]),
    rule(["apps"], ["deployments", "daemonsets"], manage),
    rule(
      [RBAC_GROUP],
      ["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
      [...manage, "update"],
    ),
    rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], manage),
    rule([SECURITY_GROUP], ["securitycontextconstraints"], ["create", "get", "list", "watch"]),
    rule([SECURITY_GROUP], ["securitycontextconstraints"], ["get", "patch", "update"], ["privileged"]),
    rule(
      [SECURITY_GROUP],
      ["securitycontextconstraints"],
      ["get", "list", "watch", "update", "delete"],
      ["kubevirt-handler", "kubevirt-controller"],
    ),
    rule(
      ["admissionregistration.k8s.io"],
      [
        "validatingwebhookconfigurations",
        "mutatingwebhookconfigurations",
        "validatingadmissionpolicybindings",
        "validatingadmissionpolicies",
      ],
      ["get", "list", "watch", "create", "delete", "update", "patch"],
    ),
    rule(
      ["apiregistration.k8s.io"],
      ["apiservices"],
      ["get", "list", "watch", "create", "delete", "update", "patch"],
    ),
    rule(
      ["monitoring.coreos.com"],
      ["servicemonitors", "prometheusrules"],
      ["get", "list", "watch", "create", "delete", "update", "patch"],
    ),
    rule([""], ["namespaces"], ["get", "list", "watch", "patch"]),
    { nonResourceURLs: ["/metrics"], verbs: ["get"] },
  ];
  const installed = installedRbac("").clusterRoles.flatMap((r) => r.rules);
  const authDelegation = [
    rule(["authentication.k8s.io"], ["tokenreviews"], ["create"]),
    rule(["authorization.k8s.io"], ["subjectaccessreviews"], ["create"]),
  ];
  return [...own, ...installed, ...authDelegation];
}

/** The Secrets the operator manages in its namespace, by name only. */
const MANAGED_SECRETS = [
  KUBEVIRT_CA_SECRET,
  VIRT_HANDLER_CLIENT_CERT_SECRET,
  VIRT_HANDLER_SERVER_CERT_SECRET,
  VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET,
  VIRT_OPERATOR_CERT_SECRET,
  VIRT_API_CERT_SECRET,
  VIRT_CONTROLLER_CERT_SECRET,
];

function operatorRoleRules(): PolicyRule[] {
  const manage = ["create", "get", "list", "watch", "patch", "delete"];
  const own = [
    rule([""], ["secrets"], manage, MANAGED_SECRETS),
    rule([""], ["configmaps"], manage),
    rule([ROUTE_GROUP], ["routes"], manage),
    rule([ROUTE_GROUP], ["routes/custom-host"], ["create"]),
    rule(
      ["coordination.k8s.io"],
      ["leases"],
      ["get", "list", "watch", "delete", "update", "create", "patch"],
    ),
  ];
  return [...own, ...installedRbac("").roles.flatMap((r) => r.rules)];
}

export function operatorRbac(namespace: string): RbacSet {
  const account = { kind: "ServiceAccount", namespace, name: OPERATOR_SERVICE_ACCOUNT } as const;
  return rbacSet({
    serviceAccounts: [serviceAccount(namespace, OPERATOR_SERVICE_ACCOUNT)],
    roles: [role(namespace, OPERATOR_SERVICE_ACCOUNT, operatorRoleRules())],
    roleBindings: [
      roleBinding(namespace, "kubevirt-operator-rolebinding", OPERATOR_SERVICE_ACCOUNT, account),
    ],
    clusterRoles: [clusterRole(OPERATOR_SERVICE_ACCOUNT, operatorClusterRules())],
    clusterRoleBindings: [clusterRoleBinding(OPERATOR_SERVICE_ACCOUNT, OPERATOR_SERVICE_ACCOUNT, account)],
  });
}

/** Lets namespace admins manage the KubeVirt CR (the manifest's `kubevirt.io:operator` role). */
export function kubevirtOperatorUserClusterRole(): ClusterRole {
  const operatorRole = clusterRole("kubevirt.io:operator", [rule([GROUPS.core], ["kubevirts"], ALL_VERBS)]);
  // Upstream labels this role for the operator, not with the app label.
  operatorRole.metadata = {
    name: "kubevirt.io:operator",
    labels: { "operator.kubevirt.io": "", "rbac.authorization.k8s.io/aggregate-to-admin": "true" },
  };
  return operatorRole;
}

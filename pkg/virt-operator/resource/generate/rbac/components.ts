// The ServiceAccount and roles of each component the operator installs (upstream's rbac/apiserver.go,
// controller.go and handler.go), least privilege as upstream grants it. Upstream's rules for APIs this
// port does not have (plugins) are left out.
import { GROUPS } from "../../../../api/kinds.js";
import {
  API_SERVICE_ACCOUNT,
  CONTROLLER_SERVICE_ACCOUNT,
  HANDLER_SERVICE_ACCOUNT,
  SUBRESOURCE_GROUP,
} from "../components/names.js";
import type { RbacSet } from "./rbac-objects.js";
import {
  READ_VERBS,
  clusterRole,
  clusterRoleBinding,
  rbacSet,
  role,
  roleBinding,
  rule,
  serviceAccount,
} from "./rbac-objects.js";

const INSTANCETYPE_RESOURCES = [
  "virtualmachineinstancetypes",
  "virtualmachineclusterinstancetypes",
  "virtualmachinepreferences",
  "virtualmachineclusterpreferences",
];
const CRD_READ = rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], READ_VERBS);
const KUBEVIRT_READ = rule([GROUPS.core], ["kubevirts"], READ_VERBS);
const MIGRATION_POLICY_READ = rule([GROUPS.migrations], ["migrationpolicies"], READ_VERBS);

/** A component's ServiceAccount bound to a ClusterRole and a Role of the same name. */
function componentRbac(
  namespace: string,
  name: string,
  clusterRules: ReturnType<typeof rule>[],
  roleRules: ReturnType<typeof rule>[],
) {
  const account = { kind: "ServiceAccount", namespace, name } as const;
  return {
    serviceAccount: serviceAccount(namespace, name),
    clusterRole: clusterRole(name, clusterRules),
    clusterRoleBinding: clusterRoleBinding(name, name, account),
    role: role(namespace, name, roleRules),
    roleBinding: roleBinding(namespace, name, name, account),
  };
}

export function apiServerRbac(namespace: string): RbacSet {
  const parts = componentRbac(
    namespace,
    API_SERVICE_ACCOUNT,
    [
      rule([""], ["pods"], ["get", "list", "delete", "patch"]),
      rule(
        [GROUPS.core],
        ["virtualmachines", "virtualmachineinstances"],
        ["get", "list", "watch", "patch", "update"],
      ),
      rule([""], ["persistentvolumeclaims"], ["get", "list"]),
      rule([GROUPS.core], ["virtualmachines/status"], ["patch"]),
      rule([GROUPS.core], ["virtualmachineinstancemigrations"], ["create", "get", "list", "watch", "patch"]),
      rule([GROUPS.core], ["virtualmachineinstancepresets"], ["watch", "list"]),
      rule([""], ["configmaps"], READ_VERBS),
      rule([""], ["limitranges"], ["watch", "list"]),
      CRD_READ,
      KUBEVIRT_READ,
      rule(
        [GROUPS.snapshot],
        ["virtualmachinesnapshots", "virtualmachinerestores", "virtualmachinesnapshotcontents"],
        READ_VERBS,
      ),
      rule([GROUPS.backup], ["virtualmachinebackups"], READ_VERBS),
      rule([GROUPS.backup], ["virtualmachinebackuptrackers"], READ_VERBS),
      rule(["cdi.kubevirt.io"], ["datasources", "datavolumes"], READ_VERBS),
      rule([""], ["namespaces"], READ_VERBS),
      rule([GROUPS.instancetype], INSTANCETYPE_RESOURCES, READ_VERBS),
      MIGRATION_POLICY_READ,
      rule(["apps"], ["controllerrevisions"], ["create", "list", "get"]),
      rule([""], ["nodes"], ["get"]),
    ],
    [rule([""], ["configmaps"], READ_VERBS)],
  );
  return rbacSet({
    serviceAccounts: [parts.serviceAccount],
    clusterRoles: [parts.clusterRole],
    // virt-api authenticates front-proxy requests and authorizes them with SubjectAccessReviews.
    clusterRoleBindings: [
      parts.clusterRoleBinding,
      clusterRoleBinding("kubevirt-apiserver-auth-delegator", "system:auth-delegator", {
        kind: "ServiceAccount",
        namespace,
        name: API_SERVICE_ACCOUNT,
      }),
    ],
    roles: [parts.role],
    roleBindings: [parts.roleBinding],
  });
}

const CRUD = ["get", "list", "watch", "create", "update", "delete", "patch"];

function controllerClusterRules() {
  return [
    rule([""], ["namespaces"], ["get", "list", "watch", "patch"]),
    rule(["policy"], ["poddisruptionbudgets"], ["get", "list", "watch", "delete", "create", "patch"]),
    rule(
      [""],
      ["pods", "configmaps", "endpoints", "services"],
      ["get", "list", "watch", "delete", "update", "create", "patch"],
    ),
    rule([""], ["events"], ["update", "create", "patch"]),
    rule([""], ["secrets"], ["create"]),
    rule([""], ["pods/finalizers"], ["update"]),
    rule([""], ["pods/eviction"], ["create"]),
    rule([""], ["pods/status"], ["patch"]),
    rule([""], ["nodes"], ["get", "list", "watch", "update", "patch"]),
    rule(["apps"], ["daemonsets"], ["list"]),
    rule(["apps"], ["controllerrevisions"], ["watch", "list", "create", "delete", "get", "update"]),
    rule([""], ["persistentvolumeclaims"], ["get", "list", "watch", "create", "update", "delete", "patch"]),
    rule(
      [GROUPS.snapshot],
      [
        "virtualmachinesnapshots",
        "virtualmachinesnapshots/status",
        "virtualmachinesnapshots/finalizers",
        "virtualmachinesnapshotcontents",
        "virtualmachinesnapshotcontents/status",
        "virtualmachinesnapshotcontents/finalizers",
        "virtualmachinerestores",
        "virtualmachinerestores/status",
      ],
      CRUD,
    ),
    rule(
      [GROUPS.export],
      ["virtualmachineexports", "virtualmachineexports/status", "virtualmachineexports/finalizers"],
      CRUD,
    ),
    rule(
      [GROUPS.backup],
      ["virtualmachinebackups", "virtualmachinebackups/status", "virtualmachinebackups/finalizers"],
      CRUD,
    ),
    rule([GROUPS.backup], ["virtualmachinebackuptrackers", "virtualmachinebackuptrackers/status"], CRUD),
    rule(["template.kubevirt.io"], ["virtualmachinetemplates"], READ_VERBS),
    rule(
      [GROUPS.pool],
      [
        "virtualmachinepools",
        "virtualmachinepools/finalizers",
        "virtualmachinepools/status",
        "virtualmachinepools/scale",
      ],
      ["watch", "list", "create", "delete", "update", "patch", "get"],
    ),
    rule([GROUPS.core], ["*"], ["*"]),
    rule([GROUPS.core], ["virtualmachines/finalizers", "virtualmachineinstances/finalizers"], ["update"]),
    rule(
      [SUBRESOURCE_GROUP],
      [
        "virtualmachines/stop",
        "virtualmachineinstances/addvolume",
        "virtualmachineinstances/removevolume",
        "virtualmachineinstances/backup",
        "virtualmachineinstances/redefine-checkpoint",
        "virtualmachineinstances/freeze",
        "virtualmachineinstances/unfreeze",
        "virtualmachineinstances/reset",
        "virtualmachineinstances/softreboot",
        "virtualmachineinstances/sev/setupsession",
        "virtualmachineinstances/sev/injectlaunchsecret",
      ],
      ["update"],
    ),
    rule(["cdi.kubevirt.io"], ["*"], ["*"]),
    CRD_READ,
    rule(["authorization.k8s.io"], ["subjectaccessreviews"], ["create"]),
    rule(["snapshot.storage.k8s.io"], ["volumesnapshotclasses"], READ_VERBS),
    rule(
      ["snapshot.storage.k8s.io"],
      ["volumesnapshots"],
      ["get", "list", "watch", "create", "update", "delete"],
    ),
    rule(["storage.k8s.io"], ["storageclasses"], READ_VERBS),
    rule([GROUPS.instancetype], INSTANCETYPE_RESOURCES, READ_VERBS),
    MIGRATION_POLICY_READ,
    rule(
      [GROUPS.clone],
      ["virtualmachineclones", "virtualmachineclones/status", "virtualmachineclones/finalizers"],
      ["get", "list", "watch", "update", "patch", "delete"],
    ),
    rule([""], ["namespaces"], ["get"]),
    rule([""], ["resourcequotas"], ["list", "watch"]),
    rule(["batch"], ["jobs"], ["create", "get", "delete"]),
    rule(["resource.k8s.io"], ["resourceslices", "resourceclaims"], ["list", "watch", "get"]),
    // Multus network-attachment-definitions: upstream drops this when ExternalNetResourceInjection is on.
    rule(["k8s.cni.cncf.io"], ["network-attachment-definitions"], ["get"]),
  ];
}

export function controllerRbac(namespace: string): RbacSet {
  const parts = componentRbac(namespace, CONTROLLER_SERVICE_ACCOUNT, controllerClusterRules(), [
    rule(["route.openshift.io"], ["routes"], ["list", "get", "watch"]),
    rule([""], ["secrets"], ["list", "get", "watch"]),
    rule(["networking.k8s.io"], ["ingresses"], ["list", "get", "watch"]),
    rule(
      ["coordination.k8s.io"],
      ["leases"],
      ["get", "list", "watch", "delete", "update", "create", "patch"],
    ),
  ]);
  return rbacFrom(parts);
}

export function handlerRbac(namespace: string): RbacSet {
  const parts = componentRbac(
    namespace,
    HANDLER_SERVICE_ACCOUNT,
    [
      rule([GROUPS.core], ["virtualmachineinstances"], ["update", "list", "watch"]),
      rule([""], ["nodes"], ["patch", "list", "watch", "get"]),
      rule([""], ["configmaps"], READ_VERBS),
      rule([""], ["events"], ["create", "patch"]),
      CRD_READ,
      KUBEVIRT_READ,
      MIGRATION_POLICY_READ,
      rule(
        [GROUPS.backup],
        ["virtualmachinebackuptrackers", "virtualmachinebackuptrackers/status"],
        ["list", "watch", "patch"],
      ),
    ],
    [rule([""], ["configmaps"], READ_VERBS)],
  );
  return rbacFrom(parts);
}

function rbacFrom(parts: ReturnType<typeof componentRbac>): RbacSet {
  return rbacSet({
    serviceAccounts: [parts.serviceAccount],
    clusterRoles: [parts.clusterRole],
    clusterRoleBindings: [parts.clusterRoleBinding],
    roles: [parts.role],
    roleBindings: [parts.roleBinding],
  });
}

// Cluster-wide roles for users (upstream's rbac/cluster.go): kubevirt.io:default for every authenticated
// user, kubevirt.io:admin|edit|view aggregated into Kubernetes' admin/edit/view, kubevirt.io:migrate, and
// read access to cluster instance types and preferences. Upstream's rules for the plugin group are left out:
// this port has no such API.
import { GROUPS } from "../../../../api/kinds.js";
import { SUBRESOURCE_GROUP } from "../components/names.js";
import type { RbacSet } from "./rbac-objects.js";
import {
  ALL_VERBS,
  EDIT_VERBS,
  READ_VERBS,
  clusterRole,
  clusterRoleBinding,
  rbacSet,
  rule,
} from "./rbac-objects.js";

export const CLUSTER_ROLE_ADMIN = "kubevirt.io:admin";
export const CLUSTER_ROLE_EDIT = "kubevirt.io:edit";
export const CLUSTER_ROLE_VIEW = "kubevirt.io:view";
export const CLUSTER_ROLE_MIGRATE = "kubevirt.io:migrate";
const DEFAULT_CLUSTER_ROLE = "kubevirt.io:default";
const INSTANCETYPE_VIEW_CLUSTER_ROLE = "instancetype.kubevirt.io:view";

const AUTOUPDATE = { "rbac.authorization.kubernetes.io/autoupdate": "true" };
const AUTHENTICATED = { kind: "Group", name: "system:authenticated" } as const;

const INSTANCETYPE_RESOURCES = [
  "virtualmachineinstancetypes",
  "virtualmachineclusterinstancetypes",
  "virtualmachinepreferences",
  "virtualmachineclusterpreferences",
];
const CORE_WORKLOADS = [
  "virtualmachines",
  "virtualmachineinstances",
  "virtualmachineinstancepresets",
  "virtualmachineinstancereplicasets",
];
const SNAPSHOT_RESOURCES = [
  "virtualmachinesnapshots",
  "virtualmachinesnapshotcontents",
  "virtualmachinerestores",
];

/** What the console-level subresources let a user read (`get`). */
const READ_SUBRESOURCES_ADMIN = [
  "virtualmachineinstances/console",
  "virtualmachineinstances/vnc",
  "virtualmachineinstances/vnc/screenshot",
  "virtualmachineinstances/portforward",
  "virtualmachineinstances/guestosinfo",
  "virtualmachineinstances/filesystemlist",
  "virtualmachineinstances/userlist",
  "virtualmachineinstances/sev/fetchcertchain",
  "virtualmachineinstances/sev/querylaunchmeasurement",
  "virtualmachineinstances/usbredir",
  "virtualmachines/objectgraph",
  "virtualmachineinstances/objectgraph",
];
const VMI_ACTIONS = [
  "virtualmachineinstances/pause",
  "virtualmachineinstances/unpause",
  "virtualmachineinstances/addvolume",
  "virtualmachineinstances/removevolume",
  "virtualmachineinstances/freeze",
  "virtualmachineinstances/unfreeze",
  "virtualmachineinstances/softreboot",
  "virtualmachineinstances/reset",
  "virtualmachineinstances/sev/setupsession",
  "virtualmachineinstances/sev/injectlaunchsecret",
  "virtualmachineinstances/evacuate/cancel",
];
const VM_ACTIONS = [
  "virtualmachines/start",
  "virtualmachines/stop",
  "virtualmachines/restart",
  "virtualmachines/addvolume",
  "virtualmachines/removevolume",
  "virtualmachines/memorydump",
  "virtualmachines/removememorydump",
  "virtualmachines/evacuate/cancel",
];

/** Admin and edit differ only in `vnc/screenshot` and in `deletecollection`. */
function workloadManagerRules(verbs: string[], readSubresources: string[]) {
  return [
    rule([SUBRESOURCE_GROUP], readSubresources, ["get"]),
    rule([SUBRESOURCE_GROUP], VMI_ACTIONS, ["update"]),
    rule([SUBRESOURCE_GROUP], ["virtualmachines/expand-spec", "virtualmachines/portforward"], ["get"]),
    rule([SUBRESOURCE_GROUP], VM_ACTIONS, ["update"]),
    rule([SUBRESOURCE_GROUP], ["expand-vm-spec"], ["update"]),
    rule([GROUPS.core], CORE_WORKLOADS, verbs),
    rule([GROUPS.core], ["virtualmachineinstancemigrations"], READ_VERBS),
    rule([GROUPS.snapshot], SNAPSHOT_RESOURCES, verbs),
    rule([GROUPS.backup], ["virtualmachinebackups", "virtualmachinebackuptrackers"], verbs),
    rule([GROUPS.export], ["virtualmachineexports"], verbs),
    rule([GROUPS.clone], ["virtualmachineclones"], verbs),
    rule([GROUPS.instancetype], INSTANCETYPE_RESOURCES, verbs),
    rule([GROUPS.pool], ["virtualmachinepools"], verbs),
  ];
}

function adminRules() {
  return [
    ...workloadManagerRules(ALL_VERBS, READ_SUBRESOURCES_ADMIN),
    rule([GROUPS.migrations], ["migrationpolicies"], READ_VERBS),
  ];
}

function editRules() {
  const readSubresources = READ_SUBRESOURCES_ADMIN.filter(
    (r) => r !== "virtualmachineinstances/vnc/screenshot",
  );
  return [
    ...workloadManagerRules(EDIT_VERBS, readSubresources),
    rule([GROUPS.core], ["kubevirts"], ["get", "list"]),
    rule([GROUPS.migrations], ["migrationpolicies"], READ_VERBS),
  ];
}

function viewRules() {
  return [
    rule([GROUPS.core], ["kubevirts"], ["get", "list"]),
    rule(
      [SUBRESOURCE_GROUP],
      [
        "virtualmachines/expand-spec",
        "virtualmachineinstances/guestosinfo",
        "virtualmachineinstances/filesystemlist",
        "virtualmachineinstances/userlist",
        "virtualmachineinstances/sev/fetchcertchain",
        "virtualmachineinstances/sev/querylaunchmeasurement",
        "virtualmachines/objectgraph",
        "virtualmachineinstances/objectgraph",
      ],
      ["get"],
    ),
    rule([SUBRESOURCE_GROUP], ["expand-vm-spec"], ["update"]),
    rule([GROUPS.core], [...CORE_WORKLOADS, "virtualmachineinstancemigrations"], READ_VERBS),
    rule([GROUPS.snapshot], SNAPSHOT_RESOURCES, READ_VERBS),
    rule([GROUPS.backup], ["virtualmachinebackups", "virtualmachinebackuptrackers"], READ_VERBS),
    rule([GROUPS.export], ["virtualmachineexports"], READ_VERBS),
    rule([GROUPS.clone], ["virtualmachineclones"], READ_VERBS),
    rule([GROUPS.instancetype], INSTANCETYPE_RESOURCES, READ_VERBS),
    rule([GROUPS.pool], ["virtualmachinepools"], READ_VERBS),
    rule([GROUPS.migrations], ["migrationpolicies"], READ_VERBS),
  ];
}

const aggregateTo = (role: "admin" | "edit" | "view") => ({
  [`rbac.authorization.k8s.io/aggregate-to-${role}`]: "true",
});

export function allClusterRbac(): RbacSet {
  return rbacSet({
    clusterRoles: [
      clusterRole(
        DEFAULT_CLUSTER_ROLE,
        [
          rule([GROUPS.core], ["kubevirts"], ["get", "list"]),
          rule([SUBRESOURCE_GROUP], ["version", "guestfs"], ["get", "list"]),
        ],
        { "kubernetes.io/bootstrapping": "rbac-defaults" },
        AUTOUPDATE,
      ),
      clusterRole(CLUSTER_ROLE_ADMIN, adminRules(), aggregateTo("admin")),
      clusterRole(CLUSTER_ROLE_EDIT, editRules(), aggregateTo("edit")),
      clusterRole(CLUSTER_ROLE_VIEW, viewRules(), aggregateTo("view")),
      clusterRole(INSTANCETYPE_VIEW_CLUSTER_ROLE, [
        rule(
          [GROUPS.instancetype],
          ["virtualmachineclusterinstancetypes", "virtualmachineclusterpreferences"],
          READ_VERBS,
        ),
      ]),
      clusterRole(CLUSTER_ROLE_MIGRATE, [
        rule([SUBRESOURCE_GROUP], ["virtualmachines/migrate"], ["update"]),
        rule([GROUPS.core], ["virtualmachineinstancemigrations"], ALL_VERBS),
      ]),
    ],
    clusterRoleBindings: [
      clusterRoleBinding(DEFAULT_CLUSTER_ROLE, DEFAULT_CLUSTER_ROLE, AUTHENTICATED, AUTOUPDATE),
      clusterRoleBinding(
        INSTANCETYPE_VIEW_CLUSTER_ROLE,
        INSTANCETYPE_VIEW_CLUSTER_ROLE,
        AUTHENTICATED,
        AUTOUPDATE,
      ),
    ],
  });
}

// Dynamic Filesystem volumes: rancher/local-path-provisioner as its own deploy/local-path-storage.yaml
// (v0.0.30) installs it — the local-path-storage namespace, its ServiceAccount and RBAC, the
// Deployment, the local-path-config ConfigMap and the local-path StorageClass (WaitForFirstConsumer,
// Delete). Changed on purpose: nodePathMap lists each node with a folder under the cluster's state
// folder (so `down` removes the data), and the StorageClass is the cluster's default, as k3s and kind
// mark theirs. The helper pods run `busybox`, which the node agent's image store maps to the host's
// static busybox.
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1Deployment,
  V1Namespace,
  V1Role,
  V1RoleBinding,
  V1ServiceAccount,
  V1StorageClass,
} from "@kubernetes/client-node";
import { stringify } from "yaml";
import type { Layout } from "./layout.js";
import { nodeStorageDir } from "./layout.js";
import { kubectlAs } from "./kubevirt.js";
import type { Say } from "./start.js";
import { topology } from "./topology.js";

export const LOCAL_PATH_NAMESPACE = "local-path-storage";
export const LOCAL_PATH_DEPLOYMENT = "local-path-provisioner";
export const LOCAL_PATH_STORAGE_CLASS = "local-path";
export const LOCAL_PATH_PROVISIONER_NAME = "rancher.io/local-path";
/** The name upstream publishes the provisioner under; the local image store maps it to the built binary. */
export const LOCAL_PATH_PROVISIONER_IMAGE = "rancher/local-path-provisioner:v0.0.30";
export const DEFAULT_STORAGE_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

const SERVICE_ACCOUNT = "local-path-provisioner-service-account";
const ROLE = "local-path-provisioner-role";
const BINDING = "local-path-provisioner-bind";
const CONFIG_MAP = "local-path-config";
const LABELS = { app: "local-path-provisioner" };
const ROLLOUT_TIMEOUT = "180s";

export type LocalPathStorageObject =
  | V1Namespace
  | V1ServiceAccount
  | V1Role
  | V1ClusterRole
  | V1RoleBinding
  | V1ClusterRoleBinding
  | V1Deployment
  | V1StorageClass
  | V1ConfigMap;

export interface LocalPathStorageOptions {
  /** Node name to the folder its volumes are made in. */
  nodePaths: ReadonlyArray<{ node: string; path: string }>;
  image: string;
  helperImage: string;
}

export function localPathStorageOptions(l: Layout): LocalPathStorageOptions {
  return {
    nodePaths: topology.nodes.map((node) => ({
      node: node.name,
      path: `${nodeStorageDir(l, node.name)}/local-path`,
    })),
    image: LOCAL_PATH_PROVISIONER_IMAGE,
    helperImage: "busybox",
  };
}

/** The provisioner's config.json: one entry per node, no default for nodes not listed. */
export function provisionerConfig(options: LocalPathStorageOptions): string {
  const nodePathMap = options.nodePaths.map(({ node, path }) => ({ node, paths: [path] }));
  return JSON.stringify({ nodePathMap }, null, 2);
}

/** Upstream's helper pod template; the provisioner adds the node, volumes, command and env. */
export function helperPodTemplate(helperImage: string): string {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "helper-pod" },
    spec: {
      priorityClassName: "system-node-critical",
      tolerations: [{ key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" }],
      containers: [{ name: "helper-pod", image: helperImage, imagePullPolicy: "IfNotPresent" }],
    },
  };
  return stringify(pod);
}

const SETUP_SCRIPT = ["#!/bin/sh", "set -eu", 'mkdir -m 0777 -p "$VOL_DIR"'].join("\n");
const TEARDOWN_SCRIPT = ["#!/bin/sh", "set -eu", 'rm -rf "$VOL_DIR"'].join("\n");

function namespace(): V1Namespace {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name: LOCAL_PATH_NAMESPACE } };
}

function serviceAccount(): V1ServiceAccount {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: SERVICE_ACCOUNT, namespace: LOCAL_PATH_NAMESPACE },
  };
}

function role(): V1Role {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: ROLE, namespace: LOCAL_PATH_NAMESPACE },
    rules: [
      {
        apiGroups: [""],
        resources: ["pods"],
        verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
      },
    ],
  };
}

function clusterRole(): V1ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: ROLE },
    rules: [
      {
        apiGroups: [""],
        resources: ["nodes", "persistentvolumeclaims", "configmaps", "pods", "pods/log"],
        verbs: ["get", "list", "watch"],
      },
      {
        apiGroups: [""],
        resources: ["persistentvolumes"],
        verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
      },
      { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
      { apiGroups: ["storage.k8s.io"], resources: ["storageclasses"], verbs: ["get", "list", "watch"] },
    ],
  };
}

const SUBJECTS = [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace: LOCAL_PATH_NAMESPACE }];

function roleBinding(): V1RoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: BINDING, namespace: LOCAL_PATH_NAMESPACE },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: ROLE },
    subjects: SUBJECTS,
  };
}

function clusterRoleBinding(): V1ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: BINDING },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ROLE },
    subjects: SUBJECTS,
  };
}

function deployment(options: LocalPathStorageOptions): V1Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: LOCAL_PATH_DEPLOYMENT, namespace: LOCAL_PATH_NAMESPACE },
    spec: {
      replicas: 1,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          serviceAccountName: SERVICE_ACCOUNT,
          containers: [
            {
              name: "local-path-provisioner",
              image: options.image,
              imagePullPolicy: "IfNotPresent",
              command: ["local-path-provisioner", "--debug", "start", "--config", "/etc/config/config.json"],
              volumeMounts: [{ name: "config-volume", mountPath: "/etc/config/" }],
              env: [
                { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                { name: "CONFIG_MOUNT_PATH", value: "/etc/config/" },
              ],
            },
          ],
          volumes: [{ name: "config-volume", configMap: { name: CONFIG_MAP } }],
        },
      },
    },
  };
}

function storageClass(): V1StorageClass {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: LOCAL_PATH_STORAGE_CLASS,
      annotations: { [DEFAULT_STORAGE_CLASS_ANNOTATION]: "true" },
    },
    provisioner: LOCAL_PATH_PROVISIONER_NAME,
    volumeBindingMode: "WaitForFirstConsumer",
    reclaimPolicy: "Delete",
  };
}

function configMap(options: LocalPathStorageOptions): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: CONFIG_MAP, namespace: LOCAL_PATH_NAMESPACE },
    data: {
      "config.json": provisionerConfig(options),
      setup: SETUP_SCRIPT,
      teardown: TEARDOWN_SCRIPT,
      "helperPod.yaml": helperPodTemplate(options.helperImage),
    },
  };
}

/** Every object of the manifest, in its order. */
export function localPathStorageObjects(options: LocalPathStorageOptions): LocalPathStorageObject[] {
  return [
    namespace(),
    serviceAccount(),
    role(),
    clusterRole(),
    roleBinding(),
    clusterRoleBinding(),
    deployment(options),
    storageClass(),
    configMap(options),
  ];
}

export function renderLocalPathStorage(options: LocalPathStorageOptions): string {
  return localPathStorageObjects(options)
    .map((object) => stringify(object))
    .join("---\n");
}

/** Applies the manifest and waits for the provisioner to run; idempotent. */
export async function installLocalPathStorage(l: Layout, say: Say): Promise<void> {
  const kubectl = kubectlAs(l);
  await kubectl(["apply", "-f", "-"], renderLocalPathStorage(localPathStorageOptions(l)));
  say(
    `storage: local-path-provisioner applied (StorageClass ${LOCAL_PATH_STORAGE_CLASS}, default); waiting for it`,
  );
  await kubectl([
    "-n",
    LOCAL_PATH_NAMESPACE,
    "rollout",
    "status",
    `deployment/${LOCAL_PATH_DEPLOYMENT}`,
    `--timeout=${ROLLOUT_TIMEOUT}`,
  ]);
  say("storage: local-path-provisioner running");
}

// What multus needs from the apiserver, as its upstream daemonset manifest (deployments/multus-daemonset.yml
// of multus-cni v4.2.2, the thin plugin's) installs it: the NetworkAttachmentDefinition CRD and the `multus`
// ClusterRole. Upstream binds that role to the kube-system/multus ServiceAccount whose token the thin
// entrypoint writes into multus's kubeconfig; here the node agents run multus with a client certificate of
// the cluster PKI (user `multus`, pki.ts), and the binding names that user.
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { stringify } from "yaml";
import { kubectlAs } from "./kubevirt.js";
import type { Layout } from "./layout.js";

export const NAD_GROUP = "k8s.cni.cncf.io";
export const NAD_CRD_NAME = `network-attachment-definitions.${NAD_GROUP}`;
/** The user multus's client certificate names (pki.ts) and the ClusterRole it is bound to. */
export const MULTUS_USER = "multus";
export const MULTUS_CLUSTER_ROLE = "multus";

export function networkAttachmentDefinitionCRD(): V1CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: NAD_CRD_NAME },
    spec: {
      group: NAD_GROUP,
      scope: "Namespaced",
      names: {
        plural: "network-attachment-definitions",
        singular: "network-attachment-definition",
        kind: "NetworkAttachmentDefinition",
        shortNames: ["net-attach-def"],
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              description:
                "NetworkAttachmentDefinition is a CRD schema specified by the Network Plumbing Working Group " +
                "to express the intent for attaching pods to one or more logical or physical networks. More " +
                "information available at: https://github.com/k8snetworkplumbingwg/multi-net-spec",
              type: "object",
              properties: {
                apiVersion: {
                  description:
                    "APIVersion defines the versioned schema of this represen tation of an object. Servers " +
                    "should convert recognized schemas to the latest internal value, and may reject " +
                    "unrecognized values. More info: https://git.k8s.io/community/contributors/devel/" +
                    "sig-architecture/api-conventions.md#resources",
                  type: "string",
                },
                kind: {
                  description:
                    "Kind is a string value representing the REST resource this object represents. Servers " +
                    "may infer this from the endpoint the client submits requests to. Cannot be updated. In " +
                    "CamelCase. More info: https://git.k8s.io/community/contributors/devel/" +
                    "sig-architecture/api-conventions.md#types-kinds",
                  type: "string",
                },
                metadata: { type: "object" },
                spec: {
                  description:
                    "NetworkAttachmentDefinition spec defines the desired state of a network attachment",
                  type: "object",
                  properties: {
                    config: {
                      description: "NetworkAttachmentDefinition config is a JSON-formatted CNI configuration",
                      type: "string",
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function multusClusterRole(): V1ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: MULTUS_CLUSTER_ROLE },
    rules: [
      { apiGroups: [NAD_GROUP], resources: ["*"], verbs: ["*"] },
      { apiGroups: [""], resources: ["pods", "pods/status"], verbs: ["get", "update"] },
      { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch", "update"] },
    ],
  };
}

export function multusClusterRoleBinding(): V1ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: MULTUS_CLUSTER_ROLE },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: MULTUS_CLUSTER_ROLE },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: MULTUS_USER }],
  };
}

export function renderMultusAPI(): string {
  return [networkAttachmentDefinitionCRD(), multusClusterRole(), multusClusterRoleBinding()]
    .map((object) => stringify(object))
    .join("---\n");
}

/** Applies the CRD and multus's RBAC and waits until NetworkAttachmentDefinitions are served; idempotent. */
export async function installMultusAPI(l: Layout): Promise<void> {
  const kubectl = kubectlAs(l);
  await kubectl(["apply", "-f", "-"], renderMultusAPI());
  await kubectl(["wait", "--for", "condition=Established", "--timeout=60s", `crd/${NAD_CRD_NAME}`]);
}

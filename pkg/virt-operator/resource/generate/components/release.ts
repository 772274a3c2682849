// The objects of the release manifests (upstream's manifests/release/*.yaml.in templates and
// tools/resource-generator): the namespace, the KubeVirt CRD, the priority class, virt-operator's RBAC and
// Deployment, and the KubeVirt CR users apply to install KubeVirt.
import type { KubeVirt } from "../../../../api/generated/v1.js";
import type { KubeObject } from "../../../../controller/object.js";
import { operatorRbac, kubevirtOperatorUserClusterRole } from "../rbac/operator.js";
import { newCustomResourceDefinition } from "./crds.js";
import { kindByCrdName } from "../../../../api/kinds.js";
import { newOperatorDeployment } from "./deployments.js";
import type { Namespace, PriorityClass } from "./k8s-types.js";
import { PRIORITY_CLASS } from "./names.js";

export interface ReleaseOptions {
  namespace: string;
  /** `<registry>/virt-operator:<tag>` is the operator image; the operator derives the others from it. */
  registry: string;
  tag: string;
  pullPolicy: string;
  verbosity: string;
  /** Set `developerConfiguration.useEmulation: true` in the CR, for clusters without /dev/kvm. */
  useEmulation: boolean;
}

export function newKubeVirtNamespace(name: string): Namespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubevirt.io": "", "pod-security.kubernetes.io/enforce": "privileged" } },
  };
}

export function newKubeVirtPriorityClass(): PriorityClass {
  return {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: PRIORITY_CLASS },
    value: 1000000000,
    globalDefault: false,
    description: "This priority class should be used for core kubevirt components only.",
  };
}

/** Everything kubevirt-operator.yaml holds, in the template's order. */
export function operatorManifestObjects(opts: ReleaseOptions, swagger: unknown): KubeObject[] {
  const kubevirtKind = kindByCrdName("kubevirts.kubevirt.io");
  if (!kubevirtKind) throw new Error("the kinds registry has no KubeVirt kind");
  const rbac = operatorRbac(opts.namespace);
  return [
    newKubeVirtNamespace(opts.namespace),
    newCustomResourceDefinition(kubevirtKind, swagger),
    newKubeVirtPriorityClass(),
    kubevirtOperatorUserClusterRole(),
    ...rbac.serviceAccounts,
    ...rbac.roles,
    ...rbac.roleBindings,
    ...rbac.clusterRoles,
    ...rbac.clusterRoleBindings,
    newOperatorDeployment({
      namespace: opts.namespace,
      image: `${opts.registry}/virt-operator:${opts.tag}`,
      kubeVirtVersion: opts.tag,
      pullPolicy: opts.pullPolicy,
      verbosity: opts.verbosity,
    }),
  ];
}

/** The KubeVirt CR of kubevirt-cr.yaml, as upstream's resource-generator writes it. */
export function newKubeVirtCR(
  opts: Pick<ReleaseOptions, "namespace" | "pullPolicy" | "useEmulation">,
): KubeVirt {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "KubeVirt",
    metadata: { name: "kubevirt", namespace: opts.namespace },
    spec: {
      certificateRotateStrategy: {},
      configuration: {
        developerConfiguration: { featureGates: [], ...(opts.useEmulation ? { useEmulation: true } : {}) },
        imagePullPolicy: opts.pullPolicy as "IfNotPresent",
      },
      customizeComponents: {},
      imagePullPolicy: opts.pullPolicy as "IfNotPresent",
      workloadUpdateStrategy: {},
    },
  };
}

// Pieces every infrastructure workload shares: the pod template with upstream's labels, priority class and
// toleration, certificate Secret volumes, anti-affinity between replicas, HTTPS probes, hardened
// container security context.
import type {
  V1Affinity,
  V1EnvVar,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Probe,
  V1SecurityContext,
} from "@kubernetes/client-node";
import {
  ALLOW_ACCESS_CLUSTER_SERVICES_LABEL,
  APP_COMPONENT_LABEL,
  APP_LABEL,
  APP_PART_OF_LABEL,
  APP_VERSION_LABEL,
  PROMETHEUS_LABEL,
  PROMETHEUS_LABEL_VALUE,
} from "../../../util/labels.js";
import { PRIORITY_CLASS } from "./names.js";

/** Product labels a KubeVirt CR may set; empty ones are left off. */
export interface ProductLabels {
  productName?: string;
  productVersion?: string;
  productComponent?: string;
}

export function productLabels(product: ProductLabels): Record<string, string> {
  const labels: Record<string, string> = {};
  if (product.productVersion) labels[APP_VERSION_LABEL] = product.productVersion;
  if (product.productName) labels[APP_PART_OF_LABEL] = product.productName;
  if (product.productComponent) labels[APP_COMPONENT_LABEL] = product.productComponent;
  return labels;
}

export interface PodTemplateOptions {
  name: string;
  image: string;
  pullPolicy: string;
  pullSecrets: Array<{ name: string }>;
  affinity?: V1Affinity;
  env?: V1EnvVar[];
  product: ProductLabels;
}

export function newPodTemplate(opts: PodTemplateOptions): V1PodTemplateSpec {
  const spec: V1PodSpec = {
    priorityClassName: PRIORITY_CLASS,
    tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
    containers: [
      {
        name: opts.name,
        image: opts.image,
        imagePullPolicy: opts.pullPolicy,
        terminationMessagePolicy: "FallbackToLogsOnError",
      },
    ],
  };
  if (opts.affinity) spec.affinity = opts.affinity;
  if (opts.pullSecrets.length > 0) spec.imagePullSecrets = opts.pullSecrets;
  const container = spec.containers[0];
  if (container && opts.env && opts.env.length > 0) container.env = opts.env;
  return {
    metadata: {
      name: opts.name,
      labels: {
        [APP_LABEL]: opts.name,
        [PROMETHEUS_LABEL]: PROMETHEUS_LABEL_VALUE,
        [ALLOW_ACCESS_CLUSTER_SERVICES_LABEL]: "true",
        ...productLabels(opts.product),
      },
    },
    spec,
  };
}

/** Prefer spreading replicas whose `kubevirt.io` label is one of `values` over nodes. */
export function podAntiAffinity(values: string[]): V1Affinity {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 1,
          podAffinityTerm: {
            labelSelector: { matchExpressions: [{ key: APP_LABEL, operator: "In", values }] },
            topologyKey: "kubernetes.io/hostname",
          },
        },
      ],
    },
  };
}

/** Mounts a certificate Secret read-only into the first container, the volume named after the Secret. */
export function attachCertificateSecret(
  spec: V1PodSpec,
  secretName: string,
  mountPath: string,
  optional = false,
): void {
  spec.volumes = [...(spec.volumes ?? []), { name: secretName, secret: { secretName, optional } }];
  const container = spec.containers[0];
  if (!container) throw new Error("pod spec has no container to mount the certificates into");
  container.volumeMounts = [
    ...(container.volumeMounts ?? []),
    { name: secretName, readOnly: true, mountPath },
  ];
}

export function httpsGetProbe(port: number, path: string, timing: Omit<V1Probe, "httpGet">): V1Probe {
  return { httpGet: { scheme: "HTTPS", port, path }, ...timing };
}

export function restrictedContainerSecurityContext(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  };
}

export function restrictedPodSecurityContext(): NonNullable<V1PodSpec["securityContext"]> {
  return { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } };
}

/** The env list of passthrough variables (KV_IO_EXTRA_ENV_*), in a stable order. */
export function envFromMap(env: Readonly<Record<string, string>>): V1EnvVar[] {
  return Object.keys(env)
    .sort()
    .map((name) => ({ name, value: env[name] ?? "" }));
}

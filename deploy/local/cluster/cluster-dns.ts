// The cluster DNS add-on as kubeadm installs it (cmd/kubeadm/app/phases/addons/dns/manifests.go): the
// coredns ServiceAccount, the system:coredns ClusterRole and binding, the Corefile ConfigMap, the
// kube-system/coredns Deployment and the kube-dns Service at the cluster DNS address. One change on
// purpose: the Corefile has no `forward` (and the binary has no forward plugin), so a name outside the
// cluster fails (SERVFAIL) instead of being sent to a server outside the machine.
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1Deployment,
  V1ServiceAccount,
  V1Service,
} from "@kubernetes/client-node";
import { stringify } from "yaml";
import type { Layout } from "./layout.js";
import { kubectlAs } from "./kubevirt.js";
import type { Say } from "./start.js";
import { topology } from "./topology.js";

export const DNS_NAMESPACE = "kube-system";
export const COREDNS_DEPLOYMENT = "coredns";
export const KUBE_DNS_SERVICE = "kube-dns";
/** The name upstream publishes CoreDNS under; the local image store maps it to the built binary. */
export const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.15.0";

const LABELS = { "k8s-app": "kube-dns" };
const ROLLOUT_TIMEOUT = "180s";

export type ClusterDNSObject =
  V1ServiceAccount | V1ClusterRole | V1ClusterRoleBinding | V1ConfigMap | V1Deployment | V1Service;

export interface ClusterDNSOptions {
  dnsIP: string;
  domain: string;
  image: string;
  replicas: number;
}

export const localClusterDNS: ClusterDNSOptions = {
  dnsIP: topology.clusterDNSIP,
  domain: topology.clusterDomain,
  image: COREDNS_IMAGE,
  // kubeadm's two replicas; its anti-affinity puts one on each node
  replicas: 2,
};

/** kubeadm's Corefile without `forward`: the cluster's zones, health, readiness, metrics, caching. */
export function corefile(domain: string): string {
  return [
    ".:53 {",
    "    errors",
    "    health {",
    "       lameduck 5s",
    "    }",
    "    ready",
    `    kubernetes ${domain} in-addr.arpa ip6.arpa {`,
    "       pods insecure",
    "       fallthrough in-addr.arpa ip6.arpa",
    "       ttl 30",
    "    }",
    "    prometheus :9153",
    "    cache 30 {",
    `       disable success ${domain}`,
    `       disable denial ${domain}`,
    "    }",
    "    loop",
    "    reload",
    "    loadbalance",
    "}",
    "",
  ].join("\n");
}

function serviceAccount(): V1ServiceAccount {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "coredns", namespace: DNS_NAMESPACE },
  };
}

function clusterRole(): V1ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "system:coredns" },
    rules: [
      {
        apiGroups: [""],
        resources: ["endpoints", "services", "pods", "namespaces"],
        verbs: ["list", "watch"],
      },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
    ],
  };
}

function clusterRoleBinding(): V1ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "system:coredns" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
    subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: DNS_NAMESPACE }],
  };
}

function configMap(options: ClusterDNSOptions): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "coredns", namespace: DNS_NAMESPACE },
    data: { Corefile: corefile(options.domain) },
  };
}

function deployment(options: ClusterDNSOptions): V1Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: COREDNS_DEPLOYMENT, namespace: DNS_NAMESPACE, labels: LABELS },
    spec: {
      replicas: options.replicas,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          priorityClassName: "system-cluster-critical",
          serviceAccountName: "coredns",
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: {
                      matchExpressions: [{ key: "k8s-app", operator: "In", values: ["kube-dns"] }],
                    },
                    topologyKey: "kubernetes.io/hostname",
                  },
                },
              ],
            },
          },
          tolerations: [
            { key: "CriticalAddonsOnly", operator: "Exists" },
            { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
          ],
          nodeSelector: { "kubernetes.io/os": "linux" },
          containers: [
            {
              name: "coredns",
              image: options.image,
              imagePullPolicy: "IfNotPresent",
              resources: { limits: { memory: "170Mi" }, requests: { cpu: "100m", memory: "70Mi" } },
              args: ["-conf", "/etc/coredns/Corefile"],
              volumeMounts: [{ name: "config-volume", mountPath: "/etc/coredns", readOnly: true }],
              ports: [
                { containerPort: 53, name: "dns", protocol: "UDP" },
                { containerPort: 53, name: "dns-tcp", protocol: "TCP" },
                { containerPort: 9153, name: "metrics", protocol: "TCP" },
                { containerPort: 8080, name: "liveness-probe", protocol: "TCP" },
                { containerPort: 8181, name: "readiness-probe", protocol: "TCP" },
              ],
              livenessProbe: {
                httpGet: { path: "/health", port: "liveness-probe", scheme: "HTTP" },
                initialDelaySeconds: 60,
                timeoutSeconds: 5,
                successThreshold: 1,
                failureThreshold: 5,
              },
              readinessProbe: { httpGet: { path: "/ready", port: "readiness-probe", scheme: "HTTP" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
                readOnlyRootFilesystem: true,
              },
            },
          ],
          dnsPolicy: "Default",
          volumes: [
            {
              name: "config-volume",
              configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] },
            },
          ],
        },
      },
    },
  };
}

function service(options: ClusterDNSOptions): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: KUBE_DNS_SERVICE,
      namespace: DNS_NAMESPACE,
      labels: { ...LABELS, "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS" },
      annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" },
    },
    spec: {
      clusterIP: options.dnsIP,
      ports: [
        { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
        { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
      ],
      selector: LABELS,
    },
  };
}

/** Every object of the add-on, in the order they are applied. */
export function clusterDNSObjects(options: ClusterDNSOptions = localClusterDNS): ClusterDNSObject[] {
  return [
    serviceAccount(),
    clusterRole(),
    clusterRoleBinding(),
    configMap(options),
    deployment(options),
    service(options),
  ];
}

/** The add-on as one multi-document YAML manifest. */
export function renderClusterDNS(options: ClusterDNSOptions = localClusterDNS): string {
  return clusterDNSObjects(options)
    .map((object) => stringify(object))
    .join("---\n");
}

/** Applies the add-on and waits until CoreDNS answers (its pods Ready); idempotent. */
export async function installClusterDNS(l: Layout, say: Say): Promise<void> {
  const kubectl = kubectlAs(l);
  await kubectl(["apply", "-f", "-"], renderClusterDNS());
  say(`cluster DNS: CoreDNS applied (${KUBE_DNS_SERVICE} at ${topology.clusterDNSIP}); waiting for it`);
  await kubectl([
    "-n",
    DNS_NAMESPACE,
    "rollout",
    "status",
    `deployment/${COREDNS_DEPLOYMENT}`,
    `--timeout=${ROLLOUT_TIMEOUT}`,
  ]);
  say("cluster DNS: CoreDNS ready");
}

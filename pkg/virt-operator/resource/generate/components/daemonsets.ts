// The virt-handler DaemonSet (upstream's components/daemonsets.go): privileged, host PID, the host paths it
// shares with virt-launcher pods and the kubelet (device plugins live under /var/lib/kubelet), and its
// server and migration-client certificates, and upstream's node-labeller init container: the launcher
// image asks libvirt what the node offers VMs and leaves the answer in a host directory the handler
// reads. Upstream's deprecated podinfo volume is left out: our virt-handler never used it.
import type { KubeVirtDeploymentConfig } from "../../../util/config.js";
import { componentImage, imagePullPolicyOf, imagePullSecretsOf, verbosityOf } from "../../../util/config.js";
import { APP_LABEL } from "../../../util/labels.js";
import { COMPONENT_PORT, CONSOLE_SERVER_PORT } from "./deployments.js";
import type { Container, DaemonSet } from "./k8s-types.js";
import {
  HANDLER_SERVICE_ACCOUNT,
  VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET,
  VIRT_HANDLER_NAME,
  VIRT_HANDLER_SERVER_CERT_SECRET,
  VIRT_LAUNCHER_NAME,
} from "./names.js";
import type { ProductLabels } from "./pod-template.js";
import {
  attachCertificateSecret,
  envFromMap,
  httpsGetProbe,
  newPodTemplate,
  productLabels,
} from "./pod-template.js";

export const KUBELET_ROOT = "/var/lib/kubelet";
export const VIRT_SHARE_DIR = "/var/run/kubevirt";
export const VIRT_PRIVATE_DIR = "/var/run/kubevirt-private";
export const LIBVIRT_RUNTIMES_DIR = "/var/run/kubevirt-libvirt-runtimes";
export const NODE_LABELLER_DIR = "/var/lib/kubevirt-node-labeller";
export const VMSTATS_PORT = 8187;
/** The pod's grace period; the handler gets 15 s less to shut down cleanly before SIGKILL. */
export const HANDLER_POD_GRACE_PERIOD_SECONDS = 330;

interface HostVolume {
  name: string;
  path: string;
  mountPath: string;
  mountPropagation?: "Bidirectional" | "HostToContainer";
}

/**
 * The launcher sockets under /var/lib/kubelet/pods are reached through the short mount `/pods`: unix socket
 * paths longer than 108 characters fail.
 */
const HOST_VOLUMES: readonly HostVolume[] = [
  { name: "libvirt-runtimes", path: LIBVIRT_RUNTIMES_DIR, mountPath: LIBVIRT_RUNTIMES_DIR },
  {
    name: "virt-share-dir",
    path: VIRT_SHARE_DIR,
    mountPath: VIRT_SHARE_DIR,
    mountPropagation: "Bidirectional",
  },
  { name: "virt-private-dir", path: VIRT_PRIVATE_DIR, mountPath: VIRT_PRIVATE_DIR },
  { name: "kubelet-pods", path: `${KUBELET_ROOT}/pods`, mountPath: "/pods" },
  { name: "kubelet", path: KUBELET_ROOT, mountPath: KUBELET_ROOT, mountPropagation: "HostToContainer" },
  { name: "node-labeller", path: NODE_LABELLER_DIR, mountPath: NODE_LABELLER_DIR },
];

/** Upstream's init container; the hypervisor is KVM's, as upstream's default hypervisor renders it. */
function nodeLabellerInitContainer(launcherImage: string, pullPolicy: string): Container {
  return {
    name: VIRT_LAUNCHER_NAME,
    image: launcherImage,
    imagePullPolicy: pullPolicy,
    command: ["/bin/sh", "-c"],
    args: ["node-labeller.sh"],
    env: [
      { name: "PREFERRED_VIRTTYPE", value: "kvm" },
      { name: "HYPERVISOR_DEVICE", value: "kvm" },
    ],
    securityContext: { privileged: true },
    volumeMounts: [{ name: "node-labeller", mountPath: NODE_LABELLER_DIR }],
    terminationMessagePolicy: "FallbackToLogsOnError",
  };
}

export function newHandlerDaemonSet(config: KubeVirtDeploymentConfig, product: ProductLabels): DaemonSet {
  const template = newPodTemplate({
    name: VIRT_HANDLER_NAME,
    image: componentImage(config, VIRT_HANDLER_NAME, config.virtHandlerImage),
    pullPolicy: imagePullPolicyOf(config),
    pullSecrets: imagePullSecretsOf(config),
    env: envFromMap(config.passthroughEnvVars),
    product,
  });
  template.metadata = {
    ...template.metadata,
    annotations: { "openshift.io/required-scc": "kubevirt-handler" },
  };
  const pod = template.spec!;
  pod.serviceAccountName = HANDLER_SERVICE_ACCOUNT;
  pod.hostPID = true;
  pod.initContainers = [
    nodeLabellerInitContainer(
      componentImage(config, VIRT_LAUNCHER_NAME, config.virtLauncherImage),
      imagePullPolicyOf(config),
    ),
  ];
  pod.terminationGracePeriodSeconds = HANDLER_POD_GRACE_PERIOD_SECONDS;
  const container = pod.containers[0]!;
  Object.assign(container, {
    command: [VIRT_HANDLER_NAME],
    args: [
      "--port",
      String(COMPONENT_PORT),
      "--hostname-override",
      "$(NODE_NAME)",
      "--pod-ip-address",
      "$(MY_POD_IP)",
      "--max-metric-requests",
      "3",
      "--console-server-port",
      String(CONSOLE_SERVER_PORT),
      "--vmstats-server-port",
      String(VMSTATS_PORT),
      "--graceful-shutdown-seconds",
      String(HANDLER_POD_GRACE_PERIOD_SECONDS - 15),
      "--migration-cn-types",
      "migration",
      "-v",
      verbosityOf(config),
    ],
    ports: [
      { name: "metrics", protocol: "TCP", containerPort: COMPONENT_PORT },
      { name: "vmstats", protocol: "TCP", containerPort: VMSTATS_PORT },
    ],
    securityContext: { privileged: true, seLinuxOptions: { level: "s0" } },
    livenessProbe: httpsGetProbe(COMPONENT_PORT, "/healthz", {
      failureThreshold: 3,
      initialDelaySeconds: 15,
      timeoutSeconds: 10,
      periodSeconds: 45,
    }),
    readinessProbe: httpsGetProbe(COMPONENT_PORT, "/healthz", {
      initialDelaySeconds: 15,
      timeoutSeconds: 10,
      periodSeconds: 20,
    }),
    resources: { requests: { cpu: "10m", memory: "325Mi" } },
  });
  container.env = [
    ...(container.env ?? []),
    { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    { name: "MY_POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
  ];
  attachCertificateSecret(pod, VIRT_HANDLER_SERVER_CERT_SECRET, "/etc/virt-handler/servercertificates");
  attachCertificateSecret(
    pod,
    VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET,
    "/etc/virt-handler/migrationservercertificates",
  );
  for (const volume of HOST_VOLUMES) {
    container.volumeMounts!.push({
      name: volume.name,
      mountPath: volume.mountPath,
      ...(volume.mountPropagation ? { mountPropagation: volume.mountPropagation } : {}),
    });
    pod.volumes!.push({ name: volume.name, hostPath: { path: volume.path } });
  }
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: {
      namespace: config.namespace,
      name: VIRT_HANDLER_NAME,
      labels: { [APP_LABEL]: VIRT_HANDLER_NAME, ...productLabels(product) },
    },
    spec: {
      updateStrategy: { type: "RollingUpdate" },
      selector: { matchLabels: { [APP_LABEL]: VIRT_HANDLER_NAME } },
      template,
    },
  };
}

// The virt-api and virt-controller Deployments the operator installs, the virt-operator Deployment of the
// release manifest, and the PodDisruptionBudget of each (upstream's components/deployments.go). Volumes are
// the certificate Secrets our components read; upstream's profiler volume is left out.
import type { V1EnvVar } from "@kubernetes/client-node";
import type { KubeVirtDeploymentConfig } from "../../../util/config.js";
import {
  componentImage,
  imagePullPolicyOf,
  imagePullSecretsOf,
  VIRT_OPERATOR_IMAGE_ENV,
  verbosityOf,
} from "../../../util/config.js";
import {
  ALLOW_ACCESS_CLUSTER_SERVICES_LABEL,
  APP_LABEL,
  APP_NAME_LABEL,
  APP_NAME_SHORT_LABEL,
  PROMETHEUS_LABEL,
  PROMETHEUS_LABEL_VALUE,
} from "../../../util/labels.js";
import { DefaultPlacement, injectPlacementMetadata } from "../../placement/placement.js";
import type { Deployment, PodDisruptionBudget } from "./k8s-types.js";
import {
  API_SERVICE_ACCOUNT,
  CONTROLLER_SERVICE_ACCOUNT,
  OPERATOR_SERVICE_ACCOUNT,
  PRIORITY_CLASS,
  SUBRESOURCE_GROUP,
  SUBRESOURCE_VERSIONS,
  VIRT_API_CERT_SECRET,
  VIRT_API_NAME,
  VIRT_CONTROLLER_CERT_SECRET,
  VIRT_CONTROLLER_NAME,
  VIRT_HANDLER_CLIENT_CERT_SECRET,
  VIRT_LAUNCHER_NAME,
  VIRT_OPERATOR_CERT_SECRET,
  VIRT_OPERATOR_NAME,
} from "./names.js";
import type { ProductLabels } from "./pod-template.js";
import {
  attachCertificateSecret,
  envFromMap,
  httpsGetProbe,
  newPodTemplate,
  podAntiAffinity,
  productLabels,
  restrictedContainerSecurityContext,
  restrictedPodSecurityContext,
} from "./pod-template.js";

/** The port every component serves HTTPS (webhooks, metrics, health) on. */
export const COMPONENT_PORT = 8443;
/** virt-operator's webhook port, behind the `kubevirt-operator-webhook` Service. */
export const OPERATOR_WEBHOOK_PORT = 8444;
export const CONSOLE_SERVER_PORT = 8186;

const REQUIRED_SCC_ANNOTATION = "openshift.io/required-scc";

interface BaseDeploymentOptions {
  name: string;
  namespace: string;
  image: string;
  config: KubeVirtDeploymentConfig;
  product: ProductLabels;
}

function newBaseDeployment(opts: BaseDeploymentOptions): Deployment {
  const template = newPodTemplate({
    name: opts.name,
    image: opts.image,
    pullPolicy: imagePullPolicyOf(opts.config),
    pullSecrets: imagePullSecretsOf(opts.config),
    affinity: podAntiAffinity([opts.name]),
    env: envFromMap(opts.config.passthroughEnvVars),
    product: opts.product,
  });
  template.metadata = {
    ...template.metadata,
    annotations: { [REQUIRED_SCC_ANNOTATION]: "restricted-v2" },
  };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      namespace: opts.namespace,
      name: opts.name,
      labels: { [APP_LABEL]: opts.name, [APP_NAME_LABEL]: opts.name, ...productLabels(opts.product) },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { [APP_LABEL]: opts.name } },
      template,
    },
  };
}

function firstContainer(deployment: Deployment) {
  const container = deployment.spec.template.spec?.containers[0];
  if (!container) throw new Error(`${deployment.metadata?.name}: no container`);
  return container;
}

export function newApiServerDeployment(config: KubeVirtDeploymentConfig, product: ProductLabels): Deployment {
  const deployment = newBaseDeployment({
    name: VIRT_API_NAME,
    namespace: config.namespace,
    image: componentImage(config, VIRT_API_NAME, config.virtApiImage),
    config,
    product,
  });
  const pod = deployment.spec.template.spec!;
  attachCertificateSecret(pod, VIRT_API_CERT_SECRET, "/etc/virt-api/certificates");
  attachCertificateSecret(pod, VIRT_HANDLER_CLIENT_CERT_SECRET, "/etc/virt-handler/clientcertificates");
  pod.serviceAccountName = API_SERVICE_ACCOUNT;
  pod.securityContext = restrictedPodSecurityContext();
  Object.assign(firstContainer(deployment), {
    command: [VIRT_API_NAME],
    args: [
      "--port",
      String(COMPONENT_PORT),
      "--console-server-port",
      String(CONSOLE_SERVER_PORT),
      "--subresources-only",
      "-v",
      verbosityOf(config),
    ],
    ports: [
      { name: VIRT_API_NAME, protocol: "TCP", containerPort: COMPONENT_PORT },
      { name: "metrics", protocol: "TCP", containerPort: COMPONENT_PORT },
    ],
    readinessProbe: httpsGetProbe(
      COMPONENT_PORT,
      `/apis/${SUBRESOURCE_GROUP}/${SUBRESOURCE_VERSIONS[0]}/healthz`,
      {
        initialDelaySeconds: 15,
        periodSeconds: 10,
      },
    ),
    resources: { requests: { cpu: "5m", memory: "500Mi" } },
    securityContext: restrictedContainerSecurityContext(),
  });
  return deployment;
}

export function newControllerDeployment(
  config: KubeVirtDeploymentConfig,
  product: ProductLabels,
): Deployment {
  const deployment = newBaseDeployment({
    name: VIRT_CONTROLLER_NAME,
    namespace: config.namespace,
    image: componentImage(config, VIRT_CONTROLLER_NAME, config.virtControllerImage),
    config,
    product,
  });
  const launcherImage = componentImage(config, VIRT_LAUNCHER_NAME, config.virtLauncherImage);
  const exporterImage = componentImage(config, "virt-exportserver", undefined);
  const pod = deployment.spec.template.spec!;
  pod.serviceAccountName = CONTROLLER_SERVICE_ACCOUNT;
  pod.securityContext = restrictedPodSecurityContext();
  Object.assign(firstContainer(deployment), {
    command: [VIRT_CONTROLLER_NAME],
    args: [
      "--launcher-image",
      launcherImage,
      "--exporter-image",
      exporterImage,
      "--port",
      String(COMPONENT_PORT),
      "-v",
      verbosityOf(config),
    ],
    ports: [{ name: "metrics", protocol: "TCP", containerPort: COMPONENT_PORT }],
    livenessProbe: httpsGetProbe(COMPONENT_PORT, "/healthz", {
      failureThreshold: 8,
      initialDelaySeconds: 15,
      timeoutSeconds: 10,
    }),
    readinessProbe: httpsGetProbe(COMPONENT_PORT, "/leader", { initialDelaySeconds: 15, timeoutSeconds: 10 }),
    resources: { requests: { cpu: "10m", memory: "275Mi" } },
    securityContext: restrictedContainerSecurityContext(),
  });
  attachCertificateSecret(pod, VIRT_CONTROLLER_CERT_SECRET, "/etc/virt-controller/certificates");
  return deployment;
}

export interface OperatorDeploymentOptions {
  namespace: string;
  /** The operator's image, `<registry>/virt-operator:<tag>`. */
  image: string;
  /** The KubeVirt version the operator installs by default (its own tag). */
  kubeVirtVersion: string;
  pullPolicy: string;
  verbosity: string;
}

/** The operator Deployment of `kubevirt-operator.yaml` (upstream builds it only for the manifests). */
export function newOperatorDeployment(opts: OperatorDeploymentOptions): Deployment {
  const env: V1EnvVar[] = [
    { name: VIRT_OPERATOR_IMAGE_ENV, value: opts.image },
    {
      // not used yet; OLM fills the annotation
      name: "WATCH_NAMESPACE",
      valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
    },
    { name: "KUBEVIRT_VERSION", value: opts.kubeVirtVersion },
  ];
  const metricsProbe = httpsGetProbe(COMPONENT_PORT, "/metrics", {
    initialDelaySeconds: 5,
    timeoutSeconds: 10,
  });
  const deployment: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      namespace: opts.namespace,
      name: VIRT_OPERATOR_NAME,
      labels: { [APP_LABEL]: VIRT_OPERATOR_NAME },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { [APP_LABEL]: VIRT_OPERATOR_NAME } },
      strategy: { type: "RollingUpdate" },
      template: {
        metadata: {
          name: VIRT_OPERATOR_NAME,
          labels: {
            [APP_LABEL]: VIRT_OPERATOR_NAME,
            [APP_NAME_SHORT_LABEL]: VIRT_OPERATOR_NAME,
            [PROMETHEUS_LABEL]: PROMETHEUS_LABEL_VALUE,
            [ALLOW_ACCESS_CLUSTER_SERVICES_LABEL]: "true",
          },
          annotations: { [REQUIRED_SCC_ANNOTATION]: "restricted-v2" },
        },
        spec: {
          priorityClassName: PRIORITY_CLASS,
          tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
          affinity: podAntiAffinity([VIRT_OPERATOR_NAME]),
          serviceAccountName: OPERATOR_SERVICE_ACCOUNT,
          nodeSelector: { "kubernetes.io/os": "linux" },
          containers: [
            {
              name: VIRT_OPERATOR_NAME,
              image: opts.image,
              imagePullPolicy: opts.pullPolicy,
              command: [VIRT_OPERATOR_NAME],
              args: ["--port", String(COMPONENT_PORT), "-v", opts.verbosity],
              ports: [
                { name: "metrics", protocol: "TCP", containerPort: COMPONENT_PORT },
                { name: "webhooks", protocol: "TCP", containerPort: OPERATOR_WEBHOOK_PORT },
              ],
              livenessProbe: metricsProbe,
              readinessProbe: structuredClone(metricsProbe),
              env,
              resources: { requests: { cpu: "10m", memory: "450Mi" } },
              securityContext: restrictedContainerSecurityContext(),
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          securityContext: restrictedPodSecurityContext(),
        },
      },
    },
  };
  const pod = deployment.spec.template.spec!;
  attachCertificateSecret(pod, VIRT_OPERATOR_CERT_SECRET, "/etc/virt-operator/certificates", true);
  injectPlacementMetadata(undefined, pod, DefaultPlacement.RequireControlPlanePreferNonWorker);
  return deployment;
}

/** Keeps all but one replica of a Deployment up during voluntary disruptions. */
export function newPodDisruptionBudgetForDeployment(deployment: Deployment): PodDisruptionBudget {
  const name = `${deployment.metadata?.name ?? ""}-pdb`;
  const replicas = deployment.spec.replicas;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { namespace: deployment.metadata?.namespace, name, labels: { [APP_LABEL]: name } },
    spec: {
      minAvailable: replicas === undefined ? 1 : replicas - 1,
      selector: structuredClone(deployment.spec.selector),
    },
  };
}

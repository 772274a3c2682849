import { BenchError } from "../common/bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlJson,
  lastLine,
  missingClusterFile,
  type KubectlOptions,
} from "../common/kubectl.js";
import type { Webhook } from "./options.js";
import { VM_GROUP, VM_RESOURCE } from "./review.js";
import {
  findWebhook,
  pickPod,
  podPort,
  serverName,
  type Pod,
  type Service,
  type WebhookConfiguration,
  type WebhookEndpoint,
} from "./webhook-target.js";

// The reads the benchmark makes through kubectl (get only) to find where virt-api's webhooks answer.

/** virt-operator's names for virt-api's webhook configurations. */
const CONFIGURATIONS: Record<Webhook, [kind: string, name: string]> = {
  validate: ["validatingwebhookconfigurations", "virt-api-validator"],
  mutate: ["mutatingwebhookconfigurations", "virt-api-mutator"],
};

export interface AdmissionTarget {
  pod: { name: string; namespace: string; uid: string; node: string; ip: string };
  port: number;
  servername: string;
  /** The same CA for both webhooks (virt-operator's), from the validating configuration. */
  ca: string;
  endpoints: Record<Webhook, WebhookEndpoint>;
}

async function get<T>(k: KubectlOptions, what: string, args: string[]): Promise<T> {
  try {
    return (await kubectlJson(k, args)) as T;
  } catch (error) {
    throw new BenchError(
      `reading ${what}: ${lastLine(error)}; is KubeVirt installed (${START_CLUSTER_HINT})?`,
    );
  }
}

export async function findTarget(k: KubectlOptions, podName: string | undefined): Promise<AdmissionTarget> {
  const missing = await missingClusterFile(k);
  if (missing) throw new BenchError(`the cluster is not up: ${missing}; ${START_CLUSTER_HINT}`);
  const endpoint = async (webhook: Webhook): Promise<WebhookEndpoint> => {
    const [kind, name] = CONFIGURATIONS[webhook];
    const configuration = await get<WebhookConfiguration>(k, `${kind} ${name}`, ["get", kind, name]);
    return findWebhook(configuration, VM_GROUP, VM_RESOURCE, "CREATE");
  };
  const endpoints = { validate: await endpoint("validate"), mutate: await endpoint("mutate") };
  const { service } = endpoints.validate;
  const svc = await get<Service>(k, `Service ${service.namespace}/${service.name}`, [
    "-n",
    service.namespace,
    "get",
    "service",
    service.name,
  ]);
  const pods = await get<{ items?: Pod[] }>(k, "virt-api pods", [
    "-n",
    service.namespace,
    "get",
    "pods",
    "-l",
    "kubevirt.io=virt-api",
  ]);
  const pod = pickPod(pods.items ?? [], podName);
  return {
    pod: {
      name: pod.metadata.name,
      namespace: service.namespace,
      uid: pod.metadata.uid ?? "",
      node: pod.spec?.nodeName ?? "",
      ip: pod.status?.podIP ?? "",
    },
    port: podPort(svc, service.port, pod),
    servername: serverName(endpoints.validate),
    ca: endpoints.validate.ca,
    endpoints,
  };
}

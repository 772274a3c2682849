import { BenchError } from "../common/bench-error.js";

// Where a webhook of virt-api answers, read from the cluster's own objects as the apiserver reads them:
// the webhook configuration gives the Service, the path and the CA bundle; the Service maps its port to
// the pods' port; the benchmark then calls one pod directly at its IP, verifying the certificate for the
// name the apiserver uses (<service>.<namespace>.svc).

interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  resources?: string[];
}

export interface WebhookEntry {
  name: string;
  clientConfig?: {
    service?: { name: string; namespace: string; path?: string; port?: number };
    url?: string;
    caBundle?: string;
  };
  rules?: RuleWithOperations[];
  timeoutSeconds?: number;
}

export interface WebhookConfiguration {
  metadata?: { name?: string };
  webhooks?: WebhookEntry[];
}

export interface Service {
  spec?: { ports?: { port: number; targetPort?: number | string; name?: string }[] };
}

export interface Pod {
  metadata?: { name?: string; uid?: string; deletionTimestamp?: string };
  spec?: { nodeName?: string; containers?: { ports?: { name?: string; containerPort: number }[] }[] };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

export interface WebhookEndpoint {
  /** The webhook's name in its configuration (virtualmachine-validator.kubevirt.io). */
  name: string;
  service: { name: string; namespace: string; port: number };
  path: string;
  /** PEM, decoded from the configuration's caBundle. */
  ca: string;
  /** The apiserver's limit on one call (the configuration's timeoutSeconds, 10 by default). */
  timeoutMs: number;
}

const covers = (values: readonly string[] | undefined, value: string): boolean =>
  (values ?? []).some((v) => v === value || v === "*");

/** The webhook of `configuration` called on `operation` of `group`/`resource` (CREATE of kubevirt.io/virtualmachines). */
export function findWebhook(
  configuration: WebhookConfiguration,
  group: string,
  resource: string,
  operation: string,
): WebhookEndpoint {
  const config = configuration.metadata?.name ?? "the webhook configuration";
  const entry = (configuration.webhooks ?? []).find((webhook) =>
    (webhook.rules ?? []).some(
      (rule) =>
        covers(rule.operations, operation) &&
        covers(rule.apiGroups, group) &&
        covers(rule.resources, resource),
    ),
  );
  if (!entry) throw new BenchError(`${config} has no webhook for ${operation} of ${group}/${resource}`);
  const service = entry.clientConfig?.service;
  if (!service) throw new BenchError(`${config}: webhook ${entry.name} calls a URL, not a Service`);
  const caBundle = entry.clientConfig?.caBundle;
  if (!caBundle) throw new BenchError(`${config}: webhook ${entry.name} has no caBundle yet`);
  return {
    name: entry.name,
    service: { name: service.name, namespace: service.namespace, port: service.port ?? 443 },
    path: service.path ?? "/",
    ca: Buffer.from(caBundle, "base64").toString("utf8"),
    timeoutMs: (entry.timeoutSeconds ?? 10) * 1000,
  };
}

/** The DNS name the apiserver verifies the webhook's certificate for. */
export const serverName = (endpoint: WebhookEndpoint): string =>
  `${endpoint.service.name}.${endpoint.service.namespace}.svc`;

const isReady = (pod: Pod): boolean =>
  pod.status?.phase === "Running" &&
  !pod.metadata?.deletionTimestamp &&
  Boolean(pod.status.podIP) &&
  (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** The pod to call: `name` if given, else the first Ready one by name. */
export function pickPod(
  pods: readonly Pod[],
  name: string | undefined,
): Pod & { metadata: { name: string } } {
  const ready = pods
    .filter(isReady)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  const pod = name === undefined ? ready[0] : ready.find((p) => p.metadata?.name === name);
  if (!pod?.metadata?.name) {
    const names = pods.map((p) => `${p.metadata?.name ?? "?"} (${p.status?.phase ?? "no phase"})`);
    const wanted = name === undefined ? "a Ready virt-api pod" : `a Ready virt-api pod named ${name}`;
    throw new BenchError(`no ${wanted}; virt-api pods: ${names.join(", ") || "none"}`);
  }
  return pod as Pod & { metadata: { name: string } };
}

/** The pod's port behind the Service's `port`: the targetPort, a number or a container port's name. */
export function podPort(service: Service, port: number, pod: Pod): number {
  const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
  if (!servicePort) throw new BenchError(`the Service has no port ${port}`);
  const target = servicePort.targetPort ?? port;
  if (typeof target === "number") return target;
  if (/^\d+$/.test(target)) return Number(target);
  const named = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((p) => p.name === target);
  if (!named) throw new BenchError(`pod ${pod.metadata?.name ?? "?"} has no port named ${target}`);
  return named.containerPort;
}

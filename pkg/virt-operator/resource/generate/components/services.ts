// The Services the operator installs (upstream: NewApiServerService, NewPrometheusService,
// NewOperatorWebhookService).
import { APP_LABEL, PROMETHEUS_LABEL, PROMETHEUS_LABEL_VALUE } from "../../../util/labels.js";
import { COMPONENT_PORT } from "./deployments.js";
import type { Service } from "./k8s-types.js";
import {
  OPERATOR_WEBHOOK_SERVICE,
  PROMETHEUS_SERVICE,
  VIRT_API_NAME,
  VIRT_API_SERVICE,
  VIRT_OPERATOR_NAME,
} from "./names.js";

/** virt-api behind the aggregator and the webhooks: 443 → 8443. */
export function newApiServerService(namespace: string): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace, name: VIRT_API_SERVICE, labels: { [APP_LABEL]: VIRT_API_NAME } },
    spec: {
      selector: { [APP_LABEL]: VIRT_API_NAME },
      ports: [{ port: 443, targetPort: COMPONENT_PORT, protocol: "TCP" }],
      type: "ClusterIP",
    },
  };
}

/** A headless Service over every component's `metrics` port, for Prometheus to discover. */
export function newPrometheusService(namespace: string): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      namespace,
      name: PROMETHEUS_SERVICE,
      labels: { [APP_LABEL]: "", [PROMETHEUS_LABEL]: PROMETHEUS_LABEL_VALUE },
    },
    spec: {
      selector: { [PROMETHEUS_LABEL]: PROMETHEUS_LABEL_VALUE },
      ports: [{ name: "metrics", port: 443, targetPort: "metrics", protocol: "TCP" }],
      type: "ClusterIP",
      clusterIP: "None",
    },
  };
}

/** virt-operator's own admission webhooks (KubeVirt CR create/update/delete). */
export function newOperatorWebhookService(operatorNamespace: string): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      namespace: operatorNamespace,
      name: OPERATOR_WEBHOOK_SERVICE,
      labels: { [APP_LABEL]: "", [PROMETHEUS_LABEL]: PROMETHEUS_LABEL_VALUE },
    },
    spec: {
      selector: { [APP_LABEL]: VIRT_OPERATOR_NAME },
      ports: [{ name: "webhooks", port: 443, targetPort: "webhooks", protocol: "TCP" }],
      type: "ClusterIP",
    },
  };
}

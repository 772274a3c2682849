import { describe, expect, it } from "vitest";
import type { KubeVirtCR } from "../../../cluster.js";
import { at } from "../../../testing/field-path.js";
import { targetConfigFromKubeVirt } from "../../../util/config.js";
import { newVirtApiAPIServices } from "./apiservices.js";
import { newHandlerDaemonSet } from "./daemonsets.js";
import {
  newApiServerDeployment,
  newControllerDeployment,
  newPodDisruptionBudgetForDeployment,
} from "./deployments.js";
import { newCACertSecrets, newCAConfigMaps, newCertSecrets } from "./secrets.js";
import { newApiServerService, newOperatorWebhookService, newPrometheusService } from "./services.js";
import {
  newOperatorValidatingWebhookConfiguration,
  newVirtApiMutatingWebhookConfiguration,
  newVirtApiValidatingWebhookConfiguration,
} from "./webhooks.js";

const kv: KubeVirtCR = { metadata: { name: "kubevirt", namespace: "kubevirt" }, spec: {} };
const config = targetConfigFromKubeVirt(kv, { VIRT_OPERATOR_IMAGE: "reg.example/virt-operator:v1.2.3" });
const product = { productVersion: "v1.2.3" };

const api = newApiServerDeployment(config, product);
const controller = newControllerDeployment(config, product);
const handler = newHandlerDaemonSet(config, product);
const validator = newVirtApiValidatingWebhookConfiguration("kubevirt");
const mutator = newVirtApiMutatingWebhookConfiguration("kubevirt");
const operatorValidator = newOperatorValidatingWebhookConfiguration("kubevirt");
const apiContainer = "spec.template.spec.containers[0]";

// One row per rendered field: the object, the path, the value upstream sets.
const rows: Array<[string, unknown, string, unknown]> = [
  [
    "virt-api name and labels",
    api,
    "metadata.labels",
    {
      "kubevirt.io": "virt-api",
      "app.kubernetes.io/name": "virt-api",
      "app.kubernetes.io/version": "v1.2.3",
    },
  ],
  ["virt-api replicas", api, "spec.replicas", 2],
  ["virt-api selector", api, "spec.selector.matchLabels", { "kubevirt.io": "virt-api" }],
  ["virt-api pod app label", api, 'spec.template.metadata.labels["kubevirt.io"]', "virt-api"],
  ["virt-api pod prometheus label", api, 'spec.template.metadata.labels["prometheus.kubevirt.io"]', "true"],
  ["virt-api image", api, `${apiContainer}.image`, "reg.example/virt-api:v1.2.3"],
  ["virt-api command", api, `${apiContainer}.command`, ["virt-api"]],
  [
    "virt-api args",
    api,
    `${apiContainer}.args`,
    ["--port", "8443", "--console-server-port", "8186", "--subresources-only", "-v", "2"],
  ],
  [
    "virt-api serves 8443",
    api,
    `${apiContainer}.ports[0]`,
    { name: "virt-api", protocol: "TCP", containerPort: 8443 },
  ],
  [
    "virt-api readiness",
    api,
    `${apiContainer}.readinessProbe.httpGet`,
    { scheme: "HTTPS", port: 8443, path: "/apis/subresources.kubevirt.io/v1/healthz" },
  ],
  ["virt-api service account", api, "spec.template.spec.serviceAccountName", "kubevirt-apiserver"],
  ["virt-api runs as non-root", api, "spec.template.spec.securityContext.runAsNonRoot", true],
  ["virt-api priority class", api, "spec.template.spec.priorityClassName", "kubevirt-cluster-critical"],
  [
    "virt-api serving certs",
    api,
    "spec.template.spec.volumes[0].secret.secretName",
    "kubevirt-virt-api-certs",
  ],
  [
    "virt-api serving certs mount",
    api,
    `${apiContainer}.volumeMounts[0].mountPath`,
    "/etc/virt-api/certificates",
  ],
  [
    "virt-api handler client certs",
    api,
    `${apiContainer}.volumeMounts[1]`,
    {
      name: "kubevirt-virt-handler-certs",
      readOnly: true,
      mountPath: "/etc/virt-handler/clientcertificates",
    },
  ],
  ["virt-api requests", api, `${apiContainer}.resources.requests`, { cpu: "5m", memory: "500Mi" }],
  ["virt-controller command", controller, `${apiContainer}.command`, ["virt-controller"]],
  [
    "virt-controller launcher image",
    controller,
    `${apiContainer}.args[1]`,
    "reg.example/virt-launcher:v1.2.3",
  ],
  ["virt-controller port and verbosity", controller, `${apiContainer}.args[4]`, "--port"],
  ["virt-controller liveness", controller, `${apiContainer}.livenessProbe.httpGet.path`, "/healthz"],
  [
    "virt-controller readiness on leadership",
    controller,
    `${apiContainer}.readinessProbe.httpGet.path`,
    "/leader",
  ],
  [
    "virt-controller service account",
    controller,
    "spec.template.spec.serviceAccountName",
    "kubevirt-controller",
  ],
  [
    "virt-controller certs",
    controller,
    `${apiContainer}.volumeMounts[0].mountPath`,
    "/etc/virt-controller/certificates",
  ],
  ["virt-handler app label", handler, 'metadata.labels["kubevirt.io"]', "virt-handler"],
  ["virt-handler selector", handler, "spec.selector.matchLabels", { "kubevirt.io": "virt-handler" }],
  ["virt-handler privileged", handler, `${apiContainer}.securityContext.privileged`, true],
  ["virt-handler host PID", handler, "spec.template.spec.hostPID", true],
  ["virt-handler grace period", handler, "spec.template.spec.terminationGracePeriodSeconds", 330],
  ["virt-handler service account", handler, "spec.template.spec.serviceAccountName", "kubevirt-handler"],
  [
    "virt-handler node name",
    handler,
    `${apiContainer}.env[0]`,
    { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
  ],
  [
    "virt-handler server certs",
    handler,
    "spec.template.spec.volumes[0].secret.secretName",
    "kubevirt-virt-handler-server-certs",
  ],
  ["virt-handler share dir", handler, "spec.template.spec.volumes[3].hostPath.path", "/var/run/kubevirt"],
  [
    "virt-handler share dir propagation",
    handler,
    `${apiContainer}.volumeMounts[3]`,
    { name: "virt-share-dir", mountPath: "/var/run/kubevirt", mountPropagation: "Bidirectional" },
  ],
  [
    "virt-handler kubelet pods at /pods",
    handler,
    `${apiContainer}.volumeMounts[5]`,
    { name: "kubelet-pods", mountPath: "/pods" },
  ],
  [
    "virt-handler kubelet root (device plugins)",
    handler,
    `${apiContainer}.volumeMounts[6]`,
    { name: "kubelet", mountPath: "/var/lib/kubelet", mountPropagation: "HostToContainer" },
  ],
  [
    "virt-handler node-labeller volume",
    handler,
    `${apiContainer}.volumeMounts[7]`,
    { name: "node-labeller", mountPath: "/var/lib/kubevirt-node-labeller" },
  ],
  [
    "virt-handler node-labeller init container (upstream's, from the launcher image)",
    handler,
    "spec.template.spec.initContainers[0]",
    {
      name: "virt-launcher",
      image: "reg.example/virt-launcher:v1.2.3",
      imagePullPolicy: "IfNotPresent",
      command: ["/bin/sh", "-c"],
      args: ["node-labeller.sh"],
      env: [
        { name: "PREFERRED_VIRTTYPE", value: "kvm" },
        { name: "HYPERVISOR_DEVICE", value: "kvm" },
      ],
      securityContext: { privileged: true },
      volumeMounts: [{ name: "node-labeller", mountPath: "/var/lib/kubevirt-node-labeller" }],
      terminationMessagePolicy: "FallbackToLogsOnError",
    },
  ],
  [
    "virt-handler readiness",
    handler,
    `${apiContainer}.readinessProbe.httpGet`,
    { scheme: "HTTPS", port: 8443, path: "/healthz" },
  ],
  [
    "virt-api service",
    newApiServerService("kubevirt"),
    "spec",
    {
      selector: { "kubevirt.io": "virt-api" },
      ports: [{ port: 443, targetPort: 8443, protocol: "TCP" }],
      type: "ClusterIP",
    },
  ],
  ["prometheus service is headless", newPrometheusService("kubevirt"), "spec.clusterIP", "None"],
  [
    "operator webhook service",
    newOperatorWebhookService("kubevirt"),
    "spec.ports[0]",
    { name: "webhooks", port: 443, targetPort: "webhooks", protocol: "TCP" },
  ],
  ["validator name", validator, "metadata.name", "virt-api-validator"],
  [
    "validator trusts the virt-api certificate",
    validator,
    'metadata.annotations["certificates.kubevirt.io/secret"]',
    "kubevirt-virt-api-certs",
  ],
  [
    "validator managed by the operator",
    validator,
    'metadata.labels["app.kubernetes.io/managed-by"]',
    "virt-operator",
  ],
  [
    "VMI create validation",
    validator,
    "webhooks[2].clientConfig.service",
    { namespace: "kubevirt", name: "virt-api", path: "/virtualmachineinstances-validate-create" },
  ],
  [
    "VMI create rule",
    validator,
    "webhooks[2].rules[0]",
    {
      operations: ["CREATE"],
      apiGroups: ["kubevirt.io"],
      apiVersions: ["v1alpha3", "v1"],
      resources: ["virtualmachineinstances"],
    },
  ],
  ["VM validation", validator, "webhooks[4].clientConfig.service.path", "/virtualmachines-validate"],
  [
    "launcher eviction only for launcher pods",
    validator,
    "webhooks[0].matchConditions[0].expression",
    'object.metadata.name.startsWith("virt-launcher")',
  ],
  ["mutator name", mutator, "metadata.name", "virt-api-mutator"],
  ["VM mutation", mutator, "webhooks[0].clientConfig.service.path", "/virtualmachines-mutate"],
  ["VMI mutation", mutator, "webhooks[1].clientConfig.service.path", "/virtualmachineinstances-mutate"],
  ["operator validator", operatorValidator, "webhooks[0].name", "kubevirt-validator.kubevirt.io"],
  [
    "operator validator rule",
    operatorValidator,
    "webhooks[0].rules",
    [
      {
        operations: ["DELETE"],
        apiGroups: ["kubevirt.io"],
        apiVersions: ["v1alpha3", "v1"],
        resources: ["kubevirts"],
      },
    ],
  ],
  [
    "operator validator service",
    operatorValidator,
    "webhooks[0].clientConfig.service",
    { namespace: "kubevirt", name: "kubevirt-operator-webhook", path: "/kubevirt-validate-delete" },
  ],
  ["APIService v1", newVirtApiAPIServices("kubevirt")[0], "metadata.name", "v1.subresources.kubevirt.io"],
  [
    "APIService v1alpha3",
    newVirtApiAPIServices("kubevirt")[1],
    "spec",
    {
      service: { namespace: "kubevirt", name: "virt-api" },
      group: "subresources.kubevirt.io",
      version: "v1alpha3",
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  ],
  [
    "virt-api PDB",
    newPodDisruptionBudgetForDeployment(api),
    "spec",
    { minAvailable: 1, selector: { matchLabels: { "kubevirt.io": "virt-api" } } },
  ],
];

describe("rendered components", () => {
  it.each(rows)("%s", (_name, object, path, expected) => {
    expect(at(object, path)).toEqual(expected);
  });

  it("fails every webhook closed, with a 10 s timeout", () => {
    for (const config of [validator, mutator, operatorValidator]) {
      for (const webhook of config.webhooks) {
        expect(webhook.failurePolicy, webhook.name).toBe("Fail");
        expect(webhook.timeoutSeconds).toBe(10);
      }
    }
  });

  it("registers every webhook path of upstream's virt-api once", () => {
    const paths = [...validator.webhooks, ...mutator.webhooks].map((w) => w.clientConfig.service?.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/virtualmachineinstances-validate-update",
        "/virtualmachinereplicaset-validate",
        "/migration-validate-create",
        "/status-validate",
      ]),
    );
    const names = [...validator.webhooks, ...mutator.webhooks].map((w) => w.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("names the certificate Secrets and CA ConfigMaps as upstream", () => {
    const secrets = [...newCACertSecrets("op-ns"), ...newCertSecrets("kv-ns", "op-ns")].map(
      (s) => `${s.metadata?.namespace}/${s.metadata?.name}`,
    );
    expect(secrets).toEqual([
      "op-ns/kubevirt-ca",
      "kv-ns/kubevirt-virt-api-certs",
      "kv-ns/kubevirt-controller-certs",
      "kv-ns/kubevirt-virt-handler-server-certs",
      "kv-ns/kubevirt-virt-handler-migration-client-certs",
      "kv-ns/kubevirt-virt-handler-certs",
      "op-ns/kubevirt-operator-certs",
    ]);
    expect(newCAConfigMaps("op-ns").map((c) => c.metadata?.name)).toEqual([
      "kubevirt-ca",
      "kubevirt-external-ca",
    ]);
  });

  it("passes KV_IO_EXTRA_ENV_ variables on to every component", () => {
    const withEnv = targetConfigFromKubeVirt(kv, {
      VIRT_OPERATOR_IMAGE: "r/virt-operator:t",
      KV_IO_EXTRA_ENV_HTTP_PROXY: "http://proxy",
    });
    for (const workload of [newApiServerDeployment(withEnv, {}), newHandlerDaemonSet(withEnv, {})]) {
      expect(at(workload, `${apiContainer}.env`)).toContainEqual({
        name: "HTTP_PROXY",
        value: "http://proxy",
      });
    }
  });

  it("registers upstream v1.8's virt-api validating webhooks, in its order", () => {
    // upstream components/webhooks.go, less the plugin and virt-launcher pod webhooks (see webhooks.ts)
    expect(validator.webhooks?.map((w) => w.name)).toEqual([
      "virt-launcher-eviction-interceptor.kubevirt.io",
      "hotplug-pod-eviction-interceptor.kubevirt.io",
      "virtualmachineinstances-create-validator.kubevirt.io",
      "virtualmachineinstances-update-validator.kubevirt.io",
      "virtualmachine-validator.kubevirt.io",
      "virtualmachinereplicaset-validator.kubevirt.io",
      "virtualmachinepool-validator.kubevirt.io",
      "virtualmachinepreset-validator.kubevirt.io",
      "migration-create-validator.kubevirt.io",
      "migration-update-validator.kubevirt.io",
      "virtualmachinesnapshot-validator.snapshot.kubevirt.io",
      "virtualmachinerestore-validator.snapshot.kubevirt.io",
      "virtualmachinebackup-validator.backup.kubevirt.io",
      "virtualmachinebackuptracker-validator.backup.kubevirt.io",
      "virtualmachineexport-validator.export.kubevirt.io",
      "virtualmachineinstancetype-validator.instancetype.kubevirt.io",
      "virtualmachineclusterinstancetype-validator.instancetype.kubevirt.io",
      "virtualmachinepreference-validator.instancetype.kubevirt.io",
      "virtualmachineclusterpreference-validator.instancetype.kubevirt.io",
      "kubevirt-crd-status-validator.kubevirt.io",
      "migration-policy-validator.kubevirt.io",
      "vm-clone-validator.kubevirt.io",
    ]);
  });
});

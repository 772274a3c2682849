import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCA, newServerKeyPair, serviceDnsNames, toPem } from "../../pkg/certificates/triple.js";
import { cluster, ensureNodes, eventually, kubectl, kubectlOk as run } from "./harness.js";

// What KubeVirt leans on the local cluster for: the apiserver calling an admission webhook and
// an aggregated API that a Pod serves, through a Service, at the Pod's IP.

const namespace = "pod-served-apis";
const service = "extension";
const group = "test.kubevirt-ts.io";
const fixture = join(cluster.repoRoot, "test/integration/fixtures/extension-server.mjs");

const apply = (object: unknown) => run(["apply", "-f", "-"], JSON.stringify(object));

beforeAll(async () => {
  await ensureNodes();
  const ca = await newCA("pod-served-apis-ca");
  const serving = await toPem(
    await newServerKeyPair(ca, { commonName: service, dnsNames: serviceDnsNames(service, namespace) }),
  );
  const caBundle = Buffer.from((await toPem(ca)).certPem).toString("base64");
  await apply({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace, labels: { webhook: "on" } },
  });
  await apply({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "serving", namespace },
    type: "kubernetes.io/tls",
    stringData: { "tls.crt": serving.certPem, "tls.key": serving.keyPem },
  });
  // virt-api's image has node; the server is this checkout's fixture, handed over in a ConfigMap.
  await apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "extension-server", namespace },
    data: { "extension-server.mjs": await readFile(fixture, "utf8") },
  });
  await apply({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: service, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: service } },
      template: {
        metadata: { labels: { app: service } },
        spec: {
          containers: [
            {
              name: "server",
              image: "kubevirt-ts.local/virt-api:devel",
              command: ["node", "/fixtures/extension-server.mjs"],
              env: [
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
              ],
              ports: [{ containerPort: 8443 }],
              readinessProbe: {
                httpGet: { path: "/healthz", port: 8443, scheme: "HTTPS" },
                periodSeconds: 1,
              },
              volumeMounts: [
                { name: "certs", mountPath: "/certs", readOnly: true },
                { name: "fixtures", mountPath: "/fixtures", readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: "certs", secret: { secretName: "serving" } },
            { name: "fixtures", configMap: { name: "extension-server" } },
          ],
        },
      },
    },
  });
  await apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: service, namespace },
    spec: { selector: { app: service }, ports: [{ port: 443, targetPort: 8443 }] },
  });
  await run(["-n", namespace, "rollout", "status", `deployment/${service}`, "--timeout=120s"]);
  await apply({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "pod-served-apis" },
    webhooks: [
      {
        name: "deny-labelled.test.kubevirt-ts.io",
        clientConfig: { service: { name: service, namespace, path: "/validate" }, caBundle },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        namespaceSelector: { matchLabels: { webhook: "on" } },
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        timeoutSeconds: 10,
      },
    ],
  });
  await apply({
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: `v1.${group}` },
    spec: {
      group,
      version: "v1",
      service: { name: service, namespace, port: 443 },
      caBundle,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
}, 300_000);

afterAll(async () => {
  await kubectl(["delete", "apiservice", `v1.${group}`, "--ignore-not-found"]);
  await kubectl(["delete", "validatingwebhookconfiguration", "pod-served-apis", "--ignore-not-found"]);
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
});

describe("APIs served by a Pod", () => {
  it("the apiserver calls a validating webhook served by a Pod", async () => {
    const denied = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "no", namespace, labels: { deny: "true" } },
    };
    const result = await eventually(async () => {
      const r = await kubectl(["create", "-f", "-"], { input: JSON.stringify(denied) });
      // Until the webhook's endpoints are programmed the call fails closed with another message.
      if (!r.stderr.includes("denied by the pod on node0")) throw new Error(r.stderr);
      return r;
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /admission webhook "deny-labelled.test.kubevirt-ts.io" denied the request: denied by the pod on node0[12]/,
    );
    await run(["create", "-f", "-"], JSON.stringify({ ...denied, metadata: { name: "yes", namespace } }));
  });

  it("an APIService served by a Pod is reachable through the aggregator", async () => {
    const ping = await eventually(
      async () =>
        JSON.parse(await run(["get", "--raw", `/apis/${group}/v1/pings/hello`])) as { servedBy?: string },
    );
    expect(ping.servedBy).toMatch(new RegExp(`^${service}-`));
    const discovery = JSON.parse(await run(["get", "--raw", `/apis/${group}/v1`])) as {
      resources: { name: string }[];
    };
    expect(discovery.resources.map((r) => r.name)).toEqual(["pings"]);
    const status = JSON.parse(await run(["get", "apiservice", `v1.${group}`, "-o", "json"])) as {
      status: { conditions: { type: string; status: string }[] };
    };
    expect(status.status.conditions).toContainEqual(
      expect.objectContaining({ type: "Available", status: "True" }),
    );
  });
});

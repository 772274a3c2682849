// virt-api in this process, reached by the real kube-apiserver: through the aggregator
// (APIService v1.subresources.kubevirt.io → a selector-less Service whose endpoints point at the host's
// advertise address) and as a validating webhook for VirtualMachines and VirtualMachineInstances. The
// test namespace is virt-api's install namespace: its KubeVirt CR is the configuration the webhooks follow.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCA, newServerKeyPair, serviceDnsNames, toPem } from "../../pkg/certificates/triple.js";
import { VirtApiApp } from "../../pkg/virt-api/application.js";
import { cluster, crdsNotTerminating, eventually, kubeConfig, kubectl, kubectlOk as run } from "./harness.js";

const HOST = "10.243.0.1"; // the apiserver's advertise address: reachable from the apiserver itself
const namespace = "virt-api-it";
const service = "virt-api-it";
const apiServiceName = "v1.subresources.kubevirt.io";
const webhookName = "virt-api-it-validator";
const vmiWebhookName = "virt-api-it-vmi-validator";
// virt-api reads the KubeVirt CR before it serves; the VMI webhook needs VMIs.
const neededCrds = [
  "virtualmachines.kubevirt.io",
  "virtualmachineinstances.kubevirt.io",
  "kubevirts.kubevirt.io",
];
const crdFile = (name: string) => join(cluster.repoRoot, `manifests/generated/crds/${name}.yaml`);

const stop = new AbortController();
const workDir = mkdtempSync(join(tmpdir(), "virt-api-it-"));
let port = 0;
let caBundle = "";
let closed: Promise<void> | undefined;
let ownsApiService = false;
const createdCrds: string[] = [];

const json = (object: unknown) => JSON.stringify(object);

beforeAll(async () => {
  const ca = await newCA("virt-api-it-ca");
  const serving = await toPem(
    await newServerKeyPair(ca, {
      commonName: service,
      dnsNames: serviceDnsNames(service, namespace),
      ipAddresses: [HOST],
    }),
  );
  caBundle = Buffer.from((await toPem(ca)).certPem).toString("base64");
  writeFileSync(join(workDir, "tls.crt"), serving.certPem);
  writeFileSync(join(workDir, "tls.key"), serving.keyPem);
  await crdsNotTerminating(neededCrds);
  for (const crd of neededCrds) {
    if ((await kubectl(["get", "crd", crd])).code === 0) continue;
    await run(["apply", "--server-side", "-f", crdFile(crd)]);
    createdCrds.push(crd);
  }
  // Right after creation a CRD has no conditions yet, which `kubectl wait` reports as an error.
  await eventually(() =>
    run([
      "wait",
      "--for",
      "condition=Established",
      "--timeout=60s",
      ...neededCrds.map((crd) => `crd/${crd}`),
    ]),
  );
  await run(["create", "namespace", namespace]);
  const app = new VirtApiApp({
    kubeConfig: await kubeConfig(),
    namespace,
    host: HOST,
    port: 0,
    tlsCertFile: join(workDir, "tls.crt"),
    tlsKeyFile: join(workDir, "tls.key"),
    logger: pino({ level: "warn" }),
  });
  const started = await app.start(stop.signal);
  port = started.port;
  closed = started.closed;

  await run(
    ["apply", "-f", "-"],
    json({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: service, namespace },
      spec: { ports: [{ name: "https", port: 443, targetPort: port }] },
    }),
  );
  await run(
    ["apply", "-f", "-"],
    json({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: service, namespace },
      subsets: [{ addresses: [{ ip: HOST }], ports: [{ name: "https", port }] }],
    }),
  );
}, 240_000);

afterAll(async () => {
  if (ownsApiService) await kubectl(["delete", "apiservice", apiServiceName, "--ignore-not-found"]);
  await kubectl([
    "delete",
    "validatingwebhookconfiguration",
    webhookName,
    vmiWebhookName,
    "--ignore-not-found",
  ]);
  await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  stop.abort();
  await closed;
  // Gone, not terminating, when the next file looks (the operator's refuses to share the cluster).
  if (createdCrds.length > 0) {
    await kubectl(["delete", "crd", ...createdCrds, "--timeout=90s"]);
  }
  rmSync(workDir, { recursive: true, force: true });
});

/** Sends the test namespace's reviews of `resource` to this process's virt-api at `path`. */
async function registerValidatingWebhook(
  configName: string,
  webhook: string,
  target: { resource: string; operations: string[]; path: string },
): Promise<void> {
  await run(
    ["apply", "-f", "-"],
    json({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: configName },
      webhooks: [
        {
          name: webhook,
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          failurePolicy: "Fail",
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
          rules: [
            {
              operations: target.operations,
              apiGroups: ["kubevirt.io"],
              apiVersions: ["v1"],
              resources: [target.resource],
            },
          ],
          clientConfig: { caBundle, service: { namespace, name: service, port: 443, path: target.path } },
        },
      ],
    }),
  );
}

function rawCall(path: string, headers: Record<string, string>): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: HOST, port, path, method: "PUT", headers, rejectUnauthorized: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("virt-api against the real apiserver", () => {
  it("refuses identity headers sent straight to its port without the front-proxy certificate", async () => {
    const answer = await rawCall(
      `/apis/subresources.kubevirt.io/v1/namespaces/${namespace}/virtualmachines/vm1/start`,
      {
        "X-Remote-User": "system:admin",
        "X-Remote-Group": "system:masters",
      },
    );
    expect(answer.code).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: "Status",
      message: "request is not authenticated",
    });
  });

  it("serves version and start through the aggregator", async (context) => {
    // The APIService name is fixed; another suite (the operator's) may hold it for a while.
    const created = await eventually(async () => {
      await run(
        ["create", "-f", "-"],
        json({
          apiVersion: "apiregistration.k8s.io/v1",
          kind: "APIService",
          metadata: { name: apiServiceName },
          spec: {
            group: "subresources.kubevirt.io",
            version: "v1",
            groupPriorityMinimum: 1000,
            versionPriority: 15,
            caBundle,
            service: { namespace, name: service, port: 443 },
          },
        }),
      );
      return true;
    }, 90_000).catch(() => false);
    if (!created) {
      console.log(`skipped: APIService ${apiServiceName} stayed taken by another suite`);
      context.skip();
      return;
    }
    ownsApiService = true;
    const version = await eventually(() =>
      run(["get", "--raw", "/apis/subresources.kubevirt.io/v1/version"]),
    );
    expect(JSON.parse(version)).toMatchObject({ compiler: "node", gitVersion: expect.any(String) });

    // The admin passes front-proxy authentication and the SubjectAccessReview; the VM does not exist.
    const missing = await kubectl(
      [
        "replace",
        "--raw",
        `/apis/subresources.kubevirt.io/v1/namespaces/${namespace}/virtualmachines/nope/start`,
        "-f",
        "-",
      ],
      { input: "{}" },
    );
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(
      'Error from server (NotFound): virtualmachine.kubevirt.io "nope" not found',
    );
  }, 180_000);

  it("refuses an invalid VM on kubectl apply --dry-run=server with upstream's message", async () => {
    await registerValidatingWebhook(webhookName, "virtualmachine-validator.kubevirt.io", {
      resource: "virtualmachines",
      operations: ["CREATE", "UPDATE"],
      path: "/virtualmachines-validate",
    });
    const invalid = json({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachine",
      metadata: { name: "no-volume", namespace },
      spec: {
        runStrategy: "Halted",
        template: {
          spec: {
            domain: { devices: { disks: [{ name: "containerdisk", disk: {} }] }, memory: { guest: "128Mi" } },
          },
        },
      },
    });
    const answer = await eventually(async () => {
      const result = await kubectl(["apply", "--dry-run=server", "-f", "-"], { input: invalid });
      // Until the apiserver has picked up the new configuration, the VM passes unchecked.
      if (result.code === 0) throw new Error("the webhook is not in effect yet");
      return result;
    });
    // A denial with causes (422 Invalid) is printed by kubectl as the apiserver's "request is invalid".
    expect(answer.stderr).toContain(
      "The request is invalid: spec.template.spec.domain.devices.disks[0].name: " +
        "spec.template.spec.domain.devices.disks[0].Name 'containerdisk' not found.",
    );
  }, 120_000);

  it("follows the KubeVirt CR: a feature gate switched in the CR changes the answer, no restart", async () => {
    await registerValidatingWebhook(vmiWebhookName, "virtualmachineinstances-create-validator.kubevirt.io", {
      resource: "virtualmachineinstances",
      operations: ["CREATE"],
      path: "/virtualmachineinstances-validate-create",
    });
    const setFeatureGates = (featureGates: string[]) =>
      run([
        "patch",
        "kubevirt",
        "kubevirt",
        "-n",
        namespace,
        "--type=merge",
        "-p",
        json({ spec: { configuration: { developerConfiguration: { featureGates } } } }),
      ]);
    await run(
      ["create", "-f", "-"],
      json({
        apiVersion: "kubevirt.io/v1",
        kind: "KubeVirt",
        metadata: { name: "kubevirt", namespace },
        spec: { configuration: { developerConfiguration: { featureGates: [] } } },
      }),
    );
    // Only a deployed KubeVirt CR (one the operator gave a phase) configures the cluster, as upstream.
    await run([
      "patch",
      "kubevirt",
      "kubevirt",
      "-n",
      namespace,
      "--subresource=status",
      "--type=merge",
      "-p",
      json({ status: { phase: "Deployed" } }),
    ]);
    // A VMI the supported subset accepts, asking for what an alpha feature gate guards (upstream's
    // validatePortRanges). No mutating webhook runs here, so the architecture is spelled out.
    const portRangesVMI = json({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstance",
      metadata: { name: "port-ranges", namespace },
      spec: {
        architecture: "amd64",
        domain: {
          devices: {
            disks: [{ name: "containerdisk", disk: {} }],
            interfaces: [
              { name: "default", masquerade: {}, portRanges: [{ protocol: "TCP", start: 8000, end: 8080 }] },
            ],
          },
          memory: { guest: "128Mi" },
        },
        networks: [{ name: "default", pod: {} }],
        volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
      },
    });
    const dryRun = () => kubectl(["create", "--dry-run=server", "-f", "-"], { input: portRangesVMI });
    const refusal = "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled";
    const refused = async () => {
      const result = await dryRun();
      if (!result.stderr.includes(refusal)) throw new Error(`not refused: ${result.code} ${result.stderr}`);
    };
    const accepted = async () => {
      const result = await dryRun();
      if (result.code !== 0) throw new Error(`refused: ${result.stderr}`);
    };
    // Until the apiserver has picked up the webhook configuration, the VMI passes unchecked.
    await eventually(refused);

    await setFeatureGates(["PortRangesSpec"]);
    let since = Date.now();
    await eventually(accepted, 10_000, 200);
    const onAfterMs = Date.now() - since;

    await setFeatureGates([]);
    since = Date.now();
    await eventually(refused, 10_000, 200);
    const offAfterMs = Date.now() - since;
    console.log(`[virt-api] feature gate on: answered after ${onAfterMs} ms; off: after ${offAfterMs} ms`);
  }, 120_000);
});

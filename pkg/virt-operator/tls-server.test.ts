import https from "node:https";
import type { TLSSocket } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../controller/log.js";
import { OPERATOR_RESOURCES } from "./resources.js";
import type { Secret } from "./resource/generate/components/k8s-types.js";
import { loadCertificate, populateSecretWithCertificate } from "./resource/generate/components/secrets.js";
import { FakeCluster } from "./testing/fake-cluster.js";
import { SecretCertificateSource, TlsServer } from "./tls-server.js";
import { admissionHandler } from "./webhooks/server.js";

const SERVICE_NAME = "kubevirt-operator-webhook.kubevirt.svc";

async function issue(cluster: FakeCluster): Promise<string> {
  const ca: Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "kubevirt-ca", namespace: "kubevirt" },
  };
  await populateSecretWithCertificate(ca, undefined, 3600_000);
  const caPair = await loadCertificate(ca);
  const serving: Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "kubevirt-operator-certs", namespace: "kubevirt" },
  };
  await populateSecretWithCertificate(serving, caPair, 3600_000);
  cluster.seed(OPERATOR_RESOURCES.secrets, {
    ...serving,
    metadata: { ...serving.metadata, labels: { "app.kubernetes.io/managed-by": "virt-operator" } },
  });
  return caPair.cert.toString("pem");
}

function post(
  port: number,
  ca: string,
  path: string,
  body: unknown,
  servername = SERVICE_NAME,
): Promise<{ status: number; body: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const options = {
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      ca,
      servername,
      // No SNI means no name to check, as for a kubelet probe.
      ...(servername === "" ? { checkServerIdentity: () => undefined } : {}),
      agent: false,
    };
    const req = https.request(options, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), serial }),
      );
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const review = {
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: { uid: "abc", operation: "UPDATE", object: {} },
};

describe("operator webhook server", () => {
  let server: TlsServer | undefined;
  afterEach(async () => server?.stop());

  it("answers AdmissionReviews over TLS with the certificate from the Secret, and picks up a renewed one", async () => {
    const cluster = new FakeCluster();
    const source = new SecretCertificateSource(cluster.stores.secrets, "kubevirt/kubevirt-operator-certs");
    const admitted: string[] = [];
    server = new TlsServer(
      "webhooks",
      source,
      admissionHandler({
        "/kubevirt-validate-update": async (r) => (admitted.push(r.uid), { allowed: true }),
      }),
      silentLogger,
    );
    await server.start("127.0.0.1", 0);
    const port = server.port()!;

    // Before the operator issued the certificate there is nothing to serve with.
    await expect(post(port, "", "/kubevirt-validate-update", review)).rejects.toThrow();

    const ca = await issue(cluster);
    const first = await post(port, ca, "/kubevirt-validate-update", review);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "abc", allowed: true },
    });
    expect(admitted).toEqual(["abc"]);

    const renewedCA = await issue(cluster);
    const second = await post(port, renewedCA, "/kubevirt-validate-update", review);
    expect(second.serial).not.toBe(first.serial);

    expect((await post(port, renewedCA, "/other", review)).status).toBe(404);
    // Without SNI (a kubelet probe by IP) the same certificate serves.
    const noSni = await post(port, renewedCA, "/kubevirt-validate-update", review, "");
    expect(noSni.serial).toBe(second.serial);
    expect((await post(port, renewedCA, "/kubevirt-validate-update", { kind: "nope" })).status).toBe(400);
  });
});

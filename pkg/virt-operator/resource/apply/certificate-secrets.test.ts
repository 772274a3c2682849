import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { isSignedBy } from "../../../certificates/triple.js";
import type { KubeVirtCR } from "../../cluster.js";
import { OPERATOR_RESOURCES } from "../../resources.js";
import { FakeCluster } from "../../testing/fake-cluster.js";
import { installStrategyFor, installingKubeVirt, testContext } from "../../testing/reconcile-context.js";
import type { ConfigMap, Secret, ValidatingWebhookConfiguration } from "../generate/components/k8s-types.js";
import { loadCertificate, parseCertificatesPem } from "../generate/components/secrets.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import { createOrUpdateComponentsWithCertificates } from "./certificate-secrets.js";

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const START = Date.parse("2030-01-01T00:00:00Z");

const kv = installingKubeVirt();

let strategy: InstallStrategy;
beforeAll(() => {
  strategy = installStrategyFor(kv);
});

// Certificates are issued at "now": faking Date moves issuing and checking through time together.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

/** The CR as the controller would persist it between passes (status.generations included). */
const persisted = new WeakMap<FakeCluster, KubeVirtCR>();

async function pass(cluster: FakeCluster, at: number, spec: KubeVirtCR["spec"] = kv.spec) {
  vi.setSystemTime(at);
  const current = structuredClone(persisted.get(cluster) ?? kv);
  current.spec = spec;
  const ctx = testContext(cluster, current);
  await createOrUpdateComponentsWithCertificates(ctx, strategy);
  persisted.set(cluster, ctx.kv);
  return { writes: cluster.takeWrites(), requeues: ctx.requeues };
}

const secret = (cluster: FakeCluster, name: string) =>
  cluster.object<Secret>(OPERATOR_RESOURCES.secrets, `kubevirt/${name}`)!;
const serial = async (cluster: FakeCluster, name: string) =>
  (await loadCertificate(secret(cluster, name))).cert.serialNumber;
const bundle = (cluster: FakeCluster) =>
  parseCertificatesPem(
    cluster.object<ConfigMap>(OPERATOR_RESOURCES.configMaps, "kubevirt/kubevirt-ca")!.data!["ca-bundle"]!,
  );

describe("certificate rotation (CA 7 days, certificates 1 day, renewed with 20% left)", () => {
  it("issues everything once and asks to be woken when the first certificate is due", async () => {
    const cluster = new FakeCluster();
    const { writes, requeues } = await pass(cluster, START);
    expect(writes.filter((w) => w.startsWith("create secrets"))).toHaveLength(7);
    expect(Math.min(...requeues)).toBeGreaterThan(0.8 * DAY - 2 * 60_000);
    expect(Math.min(...requeues)).toBeLessThanOrEqual(0.8 * DAY);
    expect((await pass(cluster, START + HOUR)).writes).toEqual([]);
  });

  it("renews the serving and client certificates 80% into their lifetime, and keeps the CA", async () => {
    const cluster = new FakeCluster();
    await pass(cluster, START);
    const [caBefore, apiBefore] = [
      await serial(cluster, "kubevirt-ca"),
      await serial(cluster, "kubevirt-virt-api-certs"),
    ];
    expect((await pass(cluster, START + 0.75 * DAY)).writes).toEqual([]);

    const { writes } = await pass(cluster, START + 0.85 * DAY);
    expect(writes.filter((w) => w.startsWith("patch secrets"))).toHaveLength(6);
    expect(await serial(cluster, "kubevirt-ca")).toBe(caBefore);
    expect(await serial(cluster, "kubevirt-virt-api-certs")).not.toBe(apiBefore);
    expect((await pass(cluster, START + 0.9 * DAY)).writes).toEqual([]);
  });

  it("renews the CA at 80% of its life, re-signs every certificate, and trusts both CAs for the overlap", async () => {
    const cluster = new FakeCluster();
    await pass(cluster, START);
    const oldCA = await serial(cluster, "kubevirt-ca");

    const rotatedAt = START + 5.7 * DAY;
    const { writes } = await pass(cluster, rotatedAt);
    expect(writes).toContain("patch secrets kubevirt/kubevirt-ca");
    expect(writes).toContain("patch configmaps kubevirt/kubevirt-ca");
    expect(writes).toContain("patch validatingwebhookconfigurations virt-api-validator");
    expect(writes).toContain("patch apiservices v1.subresources.kubevirt.io");
    const newCA = await serial(cluster, "kubevirt-ca");
    expect(bundle(cluster).map((c) => c.serialNumber)).toEqual([newCA, oldCA]);
    const webhook = cluster.object<ValidatingWebhookConfiguration>(
      OPERATOR_RESOURCES.validatingWebhooks,
      "virt-api-validator",
    )!;
    const published = Buffer.from(webhook.webhooks[0]!.clientConfig.caBundle!, "base64").toString();
    expect(parseCertificatesPem(published).map((c) => c.serialNumber)).toEqual([newCA, oldCA]);
    const apiCert = (await loadCertificate(secret(cluster, "kubevirt-virt-api-certs"))).cert;
    expect(apiCert.issuer).toBe("CN=kubevirt.io");
    expect(
      await isSignedBy(
        apiCert,
        (await loadCertificate(secret(cluster, "kubevirt-ca"))).cert,
        new Date(rotatedAt),
      ),
    ).toBe(true);

    // The overlap is the CA's renewBefore (1.4 days): afterwards only the new CA is trusted.
    await pass(cluster, rotatedAt + 1.4 * DAY + 2 * 60_000);
    expect(bundle(cluster).map((c) => c.serialNumber)).toEqual([await serial(cluster, "kubevirt-ca")]);
  });

  it("re-issues a certificate whose recorded lifetime no longer matches the CR", async () => {
    const cluster = new FakeCluster();
    await pass(cluster, START);
    const { writes } = await pass(cluster, START + HOUR, {
      certificateRotateStrategy: { selfSigned: { server: { duration: "12h" } } },
    });
    expect(writes.filter((w) => w.startsWith("patch secrets"))).toHaveLength(6);
    expect(secret(cluster, "kubevirt-virt-api-certs").metadata?.annotations?.["kubevirt.io/duration"]).toBe(
      "12h0m0s",
    );
  });

  it("adds an admin's CA from kubevirt-external-ca to the bundle", async () => {
    const cluster = new FakeCluster();
    await pass(cluster, START);
    const { newCA, toPem } = await import("../../../certificates/triple.js");
    const external = await newCA("admin-ca");
    const externalCm = cluster.object<ConfigMap>(
      OPERATOR_RESOURCES.configMaps,
      "kubevirt/kubevirt-external-ca",
    )!;
    cluster.seed(OPERATOR_RESOURCES.configMaps, {
      ...externalCm,
      data: { "ca-bundle": (await toPem(external)).certPem },
    });
    await pass(cluster, START + HOUR);
    expect(bundle(cluster).map((c) => c.subject)).toEqual(["CN=kubevirt.io", "CN=admin-ca"]);
  });
});

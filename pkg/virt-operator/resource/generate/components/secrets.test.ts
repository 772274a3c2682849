import "reflect-metadata";
import { X509Certificate as NodeX509 } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { newCA, newServerKeyPair, type CertificateKeyPair } from "../../../../certificates/triple.js";
import type { Secret } from "./k8s-types.js";
import {
  CERT_KEY,
  certificatePem,
  loadCertificate,
  mergeCABundle,
  nextRotationDeadline,
  parseCertificatesPem,
  populateSecretWithCertificate,
} from "./secrets.js";

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

const secret = (name: string, namespace = "kubevirt"): Secret => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace },
});
const nodeView = (s: Secret) => new NodeX509(Buffer.from(s.data?.[CERT_KEY] ?? "", "base64"));

describe("certificate Secrets", () => {
  let ca: CertificateKeyPair;
  beforeAll(async () => {
    const caSecret = secret("kubevirt-ca");
    await populateSecretWithCertificate(caSecret, undefined, 7 * DAY);
    ca = await loadCertificate(caSecret);
  });

  it.each([
    [
      "kubevirt-virt-api-certs",
      "CN=virt-api.kubevirt.pod.cluster.local",
      "DNS:virt-api.kubevirt.svc",
      "TLS Web Server Authentication",
    ],
    [
      "kubevirt-operator-certs",
      "CN=kubevirt-operator-webhook.kubevirt.pod.cluster.local",
      "DNS:kubevirt-operator-webhook.kubevirt.svc",
      "TLS Web Server Authentication",
    ],
    [
      "kubevirt-virt-handler-server-certs",
      "CN=kubevirt.io:system:node:virt-handler",
      "DNS:virt-handler.kubevirt.svc.cluster.local",
      "TLS Web Server Authentication",
    ],
    [
      "kubevirt-virt-handler-certs",
      "CN=kubevirt.io:system:client:virt-handler",
      undefined,
      "TLS Web Client Authentication",
    ],
  ])("%s holds %s signed by the CA", async (name, subject, altName, usage) => {
    const s = secret(name);
    await populateSecretWithCertificate(s, ca, DAY);
    const cert = nodeView(s);
    expect(cert.subject).toBe(subject);
    if (altName) expect(cert.subjectAltName).toContain(altName);
    expect(cert.checkIssued(new NodeX509(Buffer.from(ca.cert.rawData)))).toBe(true);
    expect(cert.keyUsage).toContain(
      usage === "TLS Web Server Authentication" ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2",
    );
    expect(s.metadata?.annotations?.["kubevirt.io/duration"]).toBe("24h0m0s");
  });

  it("issues the CA as kubevirt.io for the requested lifetime", async () => {
    const s = secret("kubevirt-ca");
    const before = Date.now();
    await populateSecretWithCertificate(s, undefined, 7 * DAY);
    const cert = nodeView(s);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe("CN=kubevirt.io");
    expect(Date.parse(cert.validTo)).toBeGreaterThanOrEqual(before + 7 * DAY - 1000);
    expect(s.metadata?.annotations?.["kubevirt.io/duration"]).toBe("168h0m0s");
  });

  it("refuses Secrets it has no issuing rule for, with upstream's message", async () => {
    await expect(populateSecretWithCertificate(secret("other"), ca, DAY)).rejects.toThrow(
      "no certificate population strategy found for secret",
    );
  });
});

describe("rotation deadline", () => {
  let ca: CertificateKeyPair;
  let otherCA: CertificateKeyPair;
  beforeAll(async () => {
    ca = await newCA("kubevirt.io", { validityMs: 7 * DAY });
    otherCA = await newCA("kubevirt.io", { validityMs: 7 * DAY });
  });

  it("is renewBefore ahead of expiry", async () => {
    const leaf = await newServerKeyPair(ca, { commonName: "x", validityMs: DAY });
    const now = Date.now();
    expect(await nextRotationDeadline(leaf.cert, ca.cert, 0.2 * DAY, 1.4 * DAY, now)).toBe(
      leaf.cert.notAfter.getTime() - 0.2 * DAY,
    );
  });

  it("is now when the certificate was signed by another CA", async () => {
    const leaf = await newServerKeyPair(otherCA, { commonName: "x", validityMs: DAY });
    const now = Date.now();
    expect(await nextRotationDeadline(leaf.cert, ca.cert, 0.2 * DAY, 1.4 * DAY, now)).toBe(now);
  });

  it("is halfway through the CA overlap when the CA expires first", async () => {
    const shortCA = await newCA("kubevirt.io", { validityMs: 12 * HOUR });
    const leaf = await newServerKeyPair(shortCA, { commonName: "x", validityMs: DAY });
    const deadline = await nextRotationDeadline(leaf.cert, shortCA.cert, 0.2 * DAY, 2 * HOUR, Date.now());
    expect(deadline).toBe(shortCA.cert.notAfter.getTime() - HOUR);
  });
});

describe("CA bundle", () => {
  it("puts the current CA first and keeps a previous one only during the overlap", async () => {
    const old = await newCA("kubevirt.io", { validityMs: 7 * DAY });
    const current = await newCA("kubevirt.io", { validityMs: 7 * DAY });
    const stored = certificatePem(old.cert);
    const now = Date.now();
    const within = mergeCABundle(current.cert, stored, DAY, now);
    expect(within.count).toBe(2);
    expect(parseCertificatesPem(within.bundle).map((c) => c.serialNumber)).toEqual([
      current.cert.serialNumber,
      old.cert.serialNumber,
    ]);
    const after = mergeCABundle(current.cert, within.bundle, DAY, now + DAY + 60_000 + 1);
    expect(after.count).toBe(1);
    expect(after.bundle).toBe(certificatePem(current.cert));
  });

  it("never lists the current CA twice", async () => {
    const current = await newCA("kubevirt.io");
    expect(mergeCABundle(current.cert, certificatePem(current.cert), DAY, Date.now()).count).toBe(1);
  });
});

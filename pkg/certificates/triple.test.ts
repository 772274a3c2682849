import { execFileSync } from "node:child_process";
import { X509Certificate as NodeX509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyAlgorithm } from "./keys.js";
import { newSigningKeyPem } from "./keys.js";
import type { CertificateKeyPair, PemKeyPair } from "./triple.js";
import {
  fromPem,
  isSignedBy,
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  serviceDnsNames,
  toPem,
} from "./triple.js";
import { runnable } from "../testutils/requirement.js";

/** node's own X.509 parser: an independent reader of what the library wrote. */
const nodeView = (pair: CertificateKeyPair) => new NodeX509Certificate(Buffer.from(pair.cert.rawData));

const opensslAvailable = runnable(
  "the openssl interoperability checks",
  (() => {
    try {
      execFileSync("openssl", ["version"], { stdio: "ignore" });
      return undefined;
    } catch {
      return "openssl is not installed";
    }
  })(),
);

describe.each<KeyAlgorithm>(["ecdsa-p256", "rsa-2048"])("certificate triple with %s keys", (keyAlgorithm) => {
  let ca: CertificateKeyPair;
  let server: CertificateKeyPair;
  let client: CertificateKeyPair;
  let dir: string;
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "certificates-test-"));
    ca = await newCA("test-ca", { keyAlgorithm });
    server = await newServerKeyPair(ca, {
      commonName: "kube-apiserver",
      dnsNames: ["localhost", ...serviceDnsNames("kubernetes", "default")],
      ipAddresses: ["10.243.0.1", "127.0.0.1"],
      keyAlgorithm,
    });
    client = await newClientKeyPair(ca, {
      commonName: "kubernetes-admin",
      organizations: ["system:masters", "kubeadm:cluster-admins"],
      keyAlgorithm,
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes a self-signed CA that node's own X.509 parser recognises as a CA", () => {
    const parsed = nodeView(ca);
    expect(parsed.ca).toBe(true);
    expect(parsed.subject).toBe("CN=test-ca");
    expect(parsed.checkIssued(parsed)).toBe(true);
  });

  it("signs leaves that verify against their CA and not against another CA", async () => {
    const otherCA = await newCA("other-ca", { keyAlgorithm });
    for (const leaf of [server, client]) {
      expect(await isSignedBy(leaf.cert, ca.cert)).toBe(true);
      expect(await isSignedBy(leaf.cert, otherCA.cert)).toBe(false);
      const parsed = nodeView(leaf);
      expect(parsed.ca).toBe(false);
      expect(parsed.issuer).toBe("CN=test-ca");
    }
  });

  it("treats a certificate outside its validity window as not valid", async () => {
    const nextYear = new Date(Date.now() + 400 * 24 * 3600 * 1000);
    expect(await isSignedBy(server.cert, ca.cert, nextYear)).toBe(false);
  });

  it("puts DNS and IP subject alternative names into server certificates", () => {
    const parsed = nodeView(server);
    const sans = (parsed.subjectAltName ?? "").split(", ");
    expect(sans).toEqual(
      expect.arrayContaining([
        "DNS:localhost",
        "DNS:kubernetes",
        "DNS:kubernetes.default",
        "DNS:kubernetes.default.svc",
        "DNS:kubernetes.default.svc.cluster.local",
        "IP Address:10.243.0.1",
        "IP Address:127.0.0.1",
      ]),
    );
    expect(parsed.checkHost("kubernetes.default.svc")).toBe("kubernetes.default.svc");
    expect(parsed.checkIP("10.243.0.1")).toBe("10.243.0.1");
    expect(parsed.checkIP("10.243.0.2")).toBeUndefined();
  });

  it("puts the user in CN and each group in its own O of client certificates", () => {
    const parsed = nodeView(client);
    expect(parsed.subject.split("\n")).toEqual([
      "CN=kubernetes-admin",
      "O=system:masters",
      "O=kubeadm:cluster-admins",
    ]);
  });

  it("round-trips through PEM and can keep signing after being reloaded", async () => {
    const pem: PemKeyPair = await toPem(ca);
    expect(pem.certPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(pem.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[^\r]*\n-----END PRIVATE KEY-----\n$/);
    expect(pem.certPem).toMatch(/\n-----END CERTIFICATE-----\n$/);
    const reloaded = await fromPem(pem);
    const leaf = await newClientKeyPair(reloaded, { commonName: "late", keyAlgorithm });
    expect(await isSignedBy(leaf.cert, ca.cert)).toBe(true);
    // the key on disk is the private half of the certificate's public key
    const publicFromKey = createPublicKey(createPrivateKey(pem.keyPem)).export({
      type: "spki",
      format: "der",
    });
    expect(Buffer.from(publicFromKey)).toEqual(Buffer.from(ca.cert.publicKey.rawData));
  });

  it.runIf(opensslAvailable)("is read and verified by openssl for its intended purpose", async () => {
    const caFile = write("ca.crt", (await toPem(ca)).certPem);
    const serverFile = write("server.crt", (await toPem(server)).certPem);
    const clientFile = write("client.crt", (await toPem(client)).certPem);
    const verify = (purpose: string, file: string) =>
      execFileSync("openssl", ["verify", "-purpose", purpose, "-CAfile", caFile, file], { encoding: "utf8" });
    expect(verify("sslserver", serverFile)).toContain(": OK");
    expect(verify("sslclient", clientFile)).toContain(": OK");
    expect(() => verify("sslserver", clientFile)).toThrow();
    const text = execFileSync("openssl", ["x509", "-noout", "-text", "-in", serverFile], {
      encoding: "utf8",
    });
    expect(text).toContain("TLS Web Server Authentication");
    expect(text).toMatch(/DNS:kubernetes\.default\.svc\.cluster\.local/);
    const keyCheck = execFileSync("openssl", [
      "pkey",
      "-noout",
      "-in",
      write("server.key", (await toPem(server)).keyPem),
    ]);
    expect(keyCheck.toString()).toBe("");
  });
});

describe("newSigningKeyPem", () => {
  it("returns a private key whose public half matches the public key PEM", async () => {
    const pem = await newSigningKeyPem();
    const derived = createPublicKey(createPrivateKey(pem.privateKeyPem)).export({
      type: "spki",
      format: "pem",
    });
    expect(derived).toBe(pem.publicKeyPem);
  });
});

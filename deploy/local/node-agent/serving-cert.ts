import "reflect-metadata";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as x509 from "@peculiar/x509";
import { fromPem, isSignedBy, newServerKeyPair, toPem } from "../../../pkg/certificates/triple.js";

// The kubelet serving certificate for the agent's HTTPS endpoints, signed by the cluster CA and kept in
// the state directory. An existing certificate is reused while it is signed by the same CA, names the
// node's address and has more than a week left; otherwise a new one is issued.

const RENEW_BEFORE_MS = 7 * 24 * 3600_000;

export interface ServingCert {
  cert: string;
  key: string;
  /** The CA, to verify client certificates with. */
  ca: string;
}

export interface ServingCertRequest {
  stateDir: string;
  caCertPath: string;
  caKeyPath: string;
  nodeName: string;
  nodeIP: string;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

function namesIP(cert: x509.X509Certificate, ip: string): boolean {
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return Boolean(san?.names.items.some((n) => n.type === "ip" && n.value === ip));
}

async function reusable(certPem: string, caPem: string, ip: string): Promise<boolean> {
  try {
    const cert = new x509.X509Certificate(certPem);
    const ca = new x509.X509Certificate(caPem);
    const longEnough = cert.notAfter.getTime() - Date.now() > RENEW_BEFORE_MS;
    return longEnough && namesIP(cert, ip) && (await isSignedBy(cert, ca));
  } catch {
    return false;
  }
}

export async function ensureServingCert(req: ServingCertRequest): Promise<ServingCert> {
  const dir = path.join(req.stateDir, "pki");
  const certPath = path.join(dir, "kubelet.crt");
  const keyPath = path.join(dir, "kubelet.key");
  const caPem = await readFile(req.caCertPath, "utf8");
  const [existingCert, existingKey] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  if (existingCert && existingKey && (await reusable(existingCert, caPem, req.nodeIP))) {
    return { cert: existingCert, key: existingKey, ca: caPem };
  }
  const ca = await fromPem({ certPem: caPem, keyPem: await readFile(req.caKeyPath, "utf8") });
  const pair = await newServerKeyPair(ca, {
    commonName: `system:node:${req.nodeName}`,
    dnsNames: [req.nodeName],
    ipAddresses: [req.nodeIP],
  });
  const pem = await toPem(pair);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pem.keyPem, { mode: 0o600 });
  await writeFile(certPath, pem.certPem);
  return { cert: pem.certPem, key: pem.keyPem, ca: caPem };
}

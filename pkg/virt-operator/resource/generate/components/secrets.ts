// The certificate Secrets and CA ConfigMaps the operator installs (upstream's components/secrets.go): which
// certificate each Secret holds, how it is issued, when it must be renewed, and the CA bundle that keeps an
// old CA trusted for an overlap period after rotation. Upstream's export/backup CAs and the certificates of
// components this port does not run (export proxy, synchronization controller, vsock, monitoring) are left out.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import type { CertificateKeyPair } from "../../../../certificates/triple.js";
import {
  fromPem,
  isSignedBy,
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  serviceDnsNames,
  toPem,
} from "../../../../certificates/triple.js";
import { formatGoDuration } from "../../../../util/go-duration.js";
import {
  CERTIFICATE_DURATION_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_OPERATOR,
} from "../../../util/labels.js";
import type { ConfigMap, Secret } from "./k8s-types.js";
import * as names from "./names.js";

export const CERT_KEY = "tls.crt";
export const PRIVATE_KEY_KEY = "tls.key";
const MAX_CERTIFICATES_IN_BUNDLE = 50;
const CLUSTER_DOMAIN = "cluster.local";

type Issued =
  | { type: "ca"; commonName: string }
  | { type: "server"; commonName: string; service: string }
  | { type: "client"; commonName: string };

/** What each Secret holds, by name; the namespace fills in the pod DNS common names. */
function issuedFor(secretName: string, namespace: string): Issued {
  const podDns = (service: string) => `${service}.${namespace}.pod.${CLUSTER_DOMAIN}`;
  switch (secretName) {
    case names.KUBEVIRT_CA_SECRET:
      return { type: "ca", commonName: "kubevirt.io" };
    case names.VIRT_OPERATOR_CERT_SECRET:
      return {
        type: "server",
        commonName: podDns(names.OPERATOR_WEBHOOK_SERVICE),
        service: names.OPERATOR_WEBHOOK_SERVICE,
      };
    case names.VIRT_API_CERT_SECRET:
      return { type: "server", commonName: podDns(names.VIRT_API_SERVICE), service: names.VIRT_API_SERVICE };
    case names.VIRT_CONTROLLER_CERT_SECRET:
      return {
        type: "server",
        commonName: podDns(names.VIRT_CONTROLLER_NAME),
        service: names.VIRT_CONTROLLER_NAME,
      };
    case names.VIRT_HANDLER_SERVER_CERT_SECRET:
      return {
        type: "server",
        commonName: "kubevirt.io:system:node:virt-handler",
        service: names.VIRT_HANDLER_NAME,
      };
    case names.VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET:
      return { type: "client", commonName: "kubevirt.io:system:client:migration" };
    case names.VIRT_HANDLER_CLIENT_CERT_SECRET:
      return { type: "client", commonName: "kubevirt.io:system:client:virt-handler" };
    default:
      throw new Error("no certificate population strategy found for secret");
  }
}

function tlsSecret(name: string, namespace: string): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_OPERATOR } },
    type: "kubernetes.io/tls",
  };
}

export function newCACertSecrets(operatorNamespace: string): Secret[] {
  return [tlsSecret(names.KUBEVIRT_CA_SECRET, operatorNamespace)];
}

export function newCertSecrets(installNamespace: string, operatorNamespace: string): Secret[] {
  return [
    tlsSecret(names.VIRT_API_CERT_SECRET, installNamespace),
    tlsSecret(names.VIRT_CONTROLLER_CERT_SECRET, installNamespace),
    tlsSecret(names.VIRT_HANDLER_SERVER_CERT_SECRET, installNamespace),
    tlsSecret(names.VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET, installNamespace),
    tlsSecret(names.VIRT_HANDLER_CLIENT_CERT_SECRET, installNamespace),
    tlsSecret(names.VIRT_OPERATOR_CERT_SECRET, operatorNamespace),
  ];
}

function caConfigMap(name: string, operatorNamespace: string): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: operatorNamespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_OPERATOR } },
  };
}

/** `kubevirt-ca` (the bundle components trust) and `kubevirt-external-ca` (CAs an admin adds to it). */
export function newCAConfigMaps(operatorNamespace: string): ConfigMap[] {
  return [
    caConfigMap(names.KUBEVIRT_CA_SECRET, operatorNamespace),
    caConfigMap(names.EXTERNAL_KUBEVIRT_CA_CONFIGMAP, operatorNamespace),
  ];
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const unb64 = (text: string) => Buffer.from(text, "base64").toString("utf8");

async function issue(
  issued: Issued,
  ca: CertificateKeyPair | undefined,
  validityMs: number,
  namespace: string,
) {
  if (issued.type === "ca") return newCA(issued.commonName, { validityMs });
  if (!ca) throw new Error(`a CA is needed to issue ${issued.commonName}`);
  if (issued.type === "client") return newClientKeyPair(ca, { commonName: issued.commonName, validityMs });
  return newServerKeyPair(ca, {
    commonName: issued.commonName,
    dnsNames: serviceDnsNames(issued.service, namespace, CLUSTER_DOMAIN),
    validityMs,
  });
}

/** Issues the Secret's certificate (signed by `ca` unless it is the CA) and records its validity. */
export async function populateSecretWithCertificate(
  secret: Secret,
  ca: CertificateKeyPair | undefined,
  durationMs: number,
): Promise<void> {
  const namespace = secret.metadata?.namespace ?? "";
  const pair = await issue(issuedFor(secret.metadata?.name ?? "", namespace), ca, durationMs, namespace);
  const pem = await toPem(pair);
  secret.data = { [CERT_KEY]: b64(pem.certPem), [PRIVATE_KEY_KEY]: b64(pem.keyPem) };
  secret.metadata = {
    ...secret.metadata,
    annotations: {
      ...secret.metadata?.annotations,
      [CERTIFICATE_DURATION_ANNOTATION]: formatGoDuration(durationMs),
    },
  };
}

/** The certificate and key a Secret holds; throws when either is missing or unreadable. */
export async function loadCertificate(secret: Secret): Promise<CertificateKeyPair> {
  const cert = secret.data?.[CERT_KEY];
  const key = secret.data?.[PRIVATE_KEY_KEY];
  if (cert === undefined) throw new Error(`${CERT_KEY} value not found in ${secret.metadata?.name} secret`);
  if (key === undefined)
    throw new Error(`${PRIVATE_KEY_KEY} value not found in ${secret.metadata?.name} secret`);
  return fromPem({ certPem: unb64(cert), keyPem: unb64(key) });
}

/**
 * When the certificate must be renewed (ms since epoch): `renewBefore` ahead of its expiry, right away when
 * `ca` did not sign it, and halfway through the CA's overlap when the CA expires first.
 */
export async function nextRotationDeadline(
  cert: x509.X509Certificate | undefined,
  ca: x509.X509Certificate | undefined,
  renewBeforeMs: number,
  caRenewBeforeMs: number | undefined,
  now: number,
): Promise<number> {
  if (!cert) return now;
  if (ca && !(await isSignedBy(cert, ca, new Date(now)).catch(() => false))) return now;
  let deadline = cert.notAfter.getTime() - renewBeforeMs;
  if (ca && ca.notAfter.getTime() < cert.notAfter.getTime()) {
    deadline = ca.notAfter.getTime();
    if (caRenewBeforeMs !== undefined) deadline -= caRenewBeforeMs * 0.5;
  }
  return deadline;
}

export function parseCertificatesPem(pem: string): x509.X509Certificate[] {
  if (pem.trim() === "") return [];
  return x509.PemConverter.decode(pem).map((der) => new x509.X509Certificate(der));
}

export const certificatePem = (cert: x509.X509Certificate): string => `${cert.toString("pem")}\n`;

/**
 * The CA bundle with `current` first, followed by previous CAs still within their overlap period (upstream's
 * MergeCABundle): an old CA is dropped once the one that replaced it is older than `overlapMs`.
 */
export function mergeCABundle(
  current: x509.X509Certificate,
  bundlePem: string,
  overlapMs: number,
  now: number,
): { bundle: string; count: number } {
  const valid = parseCertificatesPem(bundlePem)
    .filter((c) => c.notAfter.getTime() >= now)
    .sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime())
    .slice(0, MAX_CERTIFICATES_IN_BUNDLE);
  const currentPem = certificatePem(current);
  let bundle = currentPem;
  let count = 1;
  for (const [i, cert] of valid.entries()) {
    const newer = i === 0 ? current : valid[i - 1];
    if (newer && newer.notBefore.getTime() + overlapMs < now) break;
    const pem = certificatePem(cert);
    if (pem === currentPem) continue;
    bundle += pem;
    count++;
  }
  return { bundle, count };
}

// The mutual TLS rules between KubeVirt's own components (upstream pkg/util/tls): every certificate is
// checked against the KubeVirt CA bundle that virt-operator publishes in the `kubevirt-ca` ConfigMap, and
// the peer's common name must be the one its role is issued with, `kubevirt.io:system:<role>:<type>`.
import type { PeerCertificate } from "node:tls";
import { CA_BUNDLE_KEY, KUBEVIRT_CA_SECRET } from "../../virt-operator/resource/generate/components/names.js";

/** The ConfigMap (named as the CA Secret) holding the CA bundle, in the install namespace. */
export const KUBEVIRT_CA_CONFIGMAP = KUBEVIRT_CA_SECRET;

/** What virt-handler serves with and what virt-api presents to it. */
export const VIRT_HANDLER_TYPE = "virt-handler";

/** `node` for serving certificates, `client` for client ones. */
export type CertificateRole = "node" | "client";

export const commonNameFor = (role: CertificateRole, type: string): string =>
  `kubevirt.io:system:${role}:${type}`;

/** Undefined when `commonName` is one of the accepted names, else upstream's refusal. */
export function verifyCommonName(
  commonName: string | undefined,
  role: CertificateRole,
  types: readonly string[],
): string | undefined {
  if (types.some((type) => commonName === commonNameFor(role, type))) return undefined;
  return `common name is invalid, got ${commonName ?? ""}`;
}

/** The subject CN of a peer certificate as node reports it (a list when the subject repeats CN). */
export function commonNameOf(certificate: Partial<PeerCertificate> | undefined): string | undefined {
  const commonName = certificate?.subject?.CN as string | string[] | undefined;
  return Array.isArray(commonName) ? commonName[0] : commonName;
}

export type CABundle = { ok: true; pem: string } | { ok: false; message: string };

/** The PEM bundle of the `kubevirt-ca` ConfigMap; `configMap` undefined means it does not exist. */
export function caBundleOf(
  configMap: { data?: unknown } | undefined,
  namespace: string,
  name: string,
): CABundle {
  if (!configMap)
    return { ok: false, message: `configmap ${name} not found. Unable to detect the KubeVirt CA` };
  const data = configMap.data;
  const pem =
    typeof data === "object" && data !== null ? (data as Record<string, unknown>)[CA_BUNDLE_KEY] : undefined;
  if (typeof pem !== "string") {
    return { ok: false, message: `${CA_BUNDLE_KEY} not found in configmap ${namespace}/${name}` };
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    return { ok: false, message: `no certificate in ${CA_BUNDLE_KEY} of configmap ${namespace}/${name}` };
  }
  return { ok: true, pem };
}

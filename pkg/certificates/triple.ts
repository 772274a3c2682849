// The certificate triple (CA, server, client), as upstream's pkg/certificates/triple offers it:
// a self-signed CA, server certificates with DNS and IP subject alternative names, and client
// certificates whose CN and O become the Kubernetes user and groups.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import type { KeyAlgorithm, KeyPair, PrivateKey } from "./keys.js";
import { crypto, generateKeyPair, pemText, privateKeyFromPem, privateKeyToPem } from "./keys.js";

/** A certificate with the private key that belongs to it. */
export interface CertificateKeyPair {
  cert: x509.X509Certificate;
  privateKey: PrivateKey;
}

/** The same pair as PEM text: what goes into files, Secrets and kubeconfigs. */
export interface PemKeyPair {
  certPem: string;
  keyPem: string;
}

export interface CommonOptions {
  /** Validity from now; one year when not given. */
  validityMs?: number;
  keyAlgorithm?: KeyAlgorithm;
}

export interface ServerOptions extends CommonOptions {
  commonName: string;
  dnsNames?: string[];
  ipAddresses?: string[];
}

export interface ClientOptions extends CommonOptions {
  commonName: string;
  organizations?: string[];
}

const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;
// Backdated so a peer whose clock is slightly behind still accepts a fresh certificate.
const CLOCK_SKEW_MS = 60 * 1000;

const { keyCertSign, cRLSign, digitalSignature, keyEncipherment } = x509.KeyUsageFlags;

/** A self-signed certificate authority. */
export async function newCA(commonName: string, options: CommonOptions = {}): Promise<CertificateKeyPair> {
  const keys = await generateKeyPair(options.keyAlgorithm);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      ...validity(options),
      serialNumber: randomSerialNumber(),
      name: [{ CN: [commonName] }],
      keys,
      signingAlgorithm: signingAlgorithmOf(keys),
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(keyCertSign | cRLSign | digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { cert, privateKey: keys.privateKey };
}

/** A serving certificate signed by `ca`, valid for the given DNS names and IP addresses. */
export async function newServerKeyPair(
  ca: CertificateKeyPair,
  options: ServerOptions,
): Promise<CertificateKeyPair> {
  const names: x509.JsonGeneralName[] = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const extra = names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names, false)] : [];
  return newLeaf(ca, [{ CN: [options.commonName] }], x509.ExtendedKeyUsage.serverAuth, extra, options);
}

/** A client certificate signed by `ca`; Kubernetes reads CN as the user name and each O as a group. */
export async function newClientKeyPair(
  ca: CertificateKeyPair,
  options: ClientOptions,
): Promise<CertificateKeyPair> {
  const subject: x509.JsonName = [{ CN: [options.commonName] }];
  for (const organization of options.organizations ?? []) subject.push({ O: [organization] });
  return newLeaf(ca, subject, x509.ExtendedKeyUsage.clientAuth, [], options);
}

/** The DNS names a Service is reached by, as upstream's server key pair lists them. */
export function serviceDnsNames(
  service: string,
  namespace: string,
  clusterDomain = "cluster.local",
): string[] {
  const namespaced = `${service}.${namespace}`;
  return [service, namespaced, `${namespaced}.svc`, `${namespaced}.svc.${clusterDomain}`];
}

export async function toPem(pair: CertificateKeyPair): Promise<PemKeyPair> {
  return {
    certPem: pemText(pair.cert.rawData, "CERTIFICATE"),
    keyPem: await privateKeyToPem(pair.privateKey),
  };
}

/** Loads a pair written by `toPem`, e.g. a CA kept on disk or in a Secret to sign more certificates. */
export async function fromPem(pem: PemKeyPair): Promise<CertificateKeyPair> {
  const cert = new x509.X509Certificate(pem.certPem);
  return { cert, privateKey: await privateKeyFromPem(pem.keyPem, cert.publicKey) };
}

/** True when `cert` carries a valid signature by `ca` and `at` lies inside its validity. */
export async function isSignedBy(
  cert: x509.X509Certificate,
  ca: x509.X509Certificate,
  at: Date = new Date(),
): Promise<boolean> {
  return cert.verify({ publicKey: ca.publicKey, date: at }, crypto);
}

async function newLeaf(
  ca: CertificateKeyPair,
  subject: x509.JsonName,
  usage: x509.ExtendedKeyUsage,
  extraExtensions: x509.Extension[],
  options: CommonOptions,
): Promise<CertificateKeyPair> {
  const keys = await generateKeyPair(options.keyAlgorithm);
  const cert = await x509.X509CertificateGenerator.create(
    {
      ...validity(options),
      serialNumber: randomSerialNumber(),
      subject,
      issuer: ca.cert.subjectName,
      publicKey: keys.publicKey,
      signingKey: ca.privateKey,
      signingAlgorithm: signingAlgorithmOf({ privateKey: ca.privateKey }),
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(digitalSignature | keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([usage], false),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey, false, crypto),
        ...extraExtensions,
      ],
    },
    crypto,
  );
  return { cert, privateKey: keys.privateKey };
}

function validity(options: CommonOptions): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return {
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + (options.validityMs ?? ONE_YEAR_MS)),
  };
}

/** The signature algorithm matching the signer's key: ECDSA keys need the hash named. */
function signingAlgorithmOf(keys: Pick<KeyPair, "privateKey">): { name: string; hash: string } {
  return { name: keys.privateKey.algorithm.name, hash: "SHA-256" };
}

/** 128 random bits with the top bit clear, so the DER integer stays positive. */
function randomSerialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString("hex");
}

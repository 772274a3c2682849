// Private/public key handling for the certificate library: generation, PEM export (PKCS#8 and
// SPKI, which every Kubernetes component reads) and PEM import, on node's WebCrypto.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

export type KeyAlgorithm = "ecdsa-p256" | "rsa-2048";
export type KeyPair = webcrypto.CryptoKeyPair;
export type PrivateKey = webcrypto.CryptoKey;

/** The crypto provider every call in this library passes explicitly, so no global state matters. */
export const crypto: webcrypto.Crypto = webcrypto;

type ImportParams = webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;

const algorithms: Record<KeyAlgorithm, webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams> = {
  // Upstream KubeVirt's certificate triple uses P-256 keys.
  "ecdsa-p256": { name: "ECDSA", namedCurve: "P-256" },
  "rsa-2048": {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
};

export async function generateKeyPair(algorithm: KeyAlgorithm = "ecdsa-p256"): Promise<KeyPair> {
  return crypto.subtle.generateKey(algorithms[algorithm], true, ["sign", "verify"]);
}

export async function privateKeyToPem(key: PrivateKey): Promise<string> {
  return pemText(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY");
}

export async function publicKeyToPem(key: webcrypto.CryptoKey): Promise<string> {
  return pemText(await crypto.subtle.exportKey("spki", key), "PUBLIC KEY");
}

/** PEM as every other tool writes it: LF line ends and a final newline, so files concatenate. */
export function pemText(der: ArrayBuffer, label: string): string {
  return `${x509.PemConverter.encode(der, label).replace(/\r\n/g, "\n").trimEnd()}\n`;
}

/**
 * Imports a PKCS#8 private key. The algorithm is not recorded in WebCrypto's view of PKCS#8,
 * so it comes from the public key of the certificate the key belongs to.
 */
export async function privateKeyFromPem(pem: string, publicKey: x509.PublicKey): Promise<PrivateKey> {
  const der = singlePemBlock(pem, "PRIVATE KEY");
  return crypto.subtle.importKey("pkcs8", der, importParamsOf(publicKey), true, ["sign"]);
}

/** A bare key pair as PEM, e.g. the key the apiserver signs service-account tokens with. */
export async function newSigningKeyPem(
  algorithm: KeyAlgorithm = "ecdsa-p256",
): Promise<{ privateKeyPem: string; publicKeyPem: string }> {
  const keys = await generateKeyPair(algorithm);
  return {
    privateKeyPem: await privateKeyToPem(keys.privateKey),
    publicKeyPem: await publicKeyToPem(keys.publicKey),
  };
}

function importParamsOf(publicKey: x509.PublicKey): ImportParams {
  const algorithm = publicKey.algorithm as Partial<webcrypto.EcKeyAlgorithm> & { name: string };
  if (algorithm.name === "ECDSA") {
    return { name: "ECDSA", namedCurve: algorithm.namedCurve ?? "P-256" };
  }
  if (algorithm.name === "RSASSA-PKCS1-v1_5") return { name: algorithm.name, hash: "SHA-256" };
  throw new Error(`unsupported public key algorithm ${algorithm.name}`);
}

function singlePemBlock(pem: string, label: string): ArrayBuffer {
  const blocks = x509.PemConverter.decodeWithHeaders(pem).filter((block) => block.type === label);
  const block = blocks[0];
  if (blocks.length !== 1 || !block) throw new Error(`expected exactly one ${label} PEM block`);
  return block.rawData;
}

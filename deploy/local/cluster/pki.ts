// The cluster's certificates and keys under `.local/pki`, named as kubeadm names them. Idempotent:
// existing files are kept; a missing CA is created and then every certificate it signs is renewed.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { newSigningKeyPem } from "../../../pkg/certificates/keys.js";
import type { CertificateKeyPair } from "../../../pkg/certificates/triple.js";
import {
  fromPem,
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
} from "../../../pkg/certificates/triple.js";
import { apiserverServingNames, topology } from "./topology.js";

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ClientIdentity {
  /** File stem under the pki folder and name of the kubeconfig made from it. */
  name: string;
  commonName: string;
  organizations?: string[];
}

/** The users the control plane and the nodes authenticate as; RBAC's built-in bindings name them. */
export const clientIdentities: ClientIdentity[] = [
  { name: "admin", commonName: "kubernetes-admin", organizations: ["system:masters"] },
  { name: "kube-controller-manager", commonName: "system:kube-controller-manager" },
  { name: "kube-scheduler", commonName: "system:kube-scheduler" },
  { name: "kube-proxy", commonName: "system:kube-proxy" },
  // the node agents' multus (its ClusterRole binds this user: multus.ts)
  { name: "multus", commonName: "multus" },
  ...topology.nodes.map((node) => ({
    name: node.name,
    commonName: `system:node:${node.name}`,
    organizations: ["system:nodes"],
  })),
];

export const pkiFiles = (pkiDir: string) => {
  const pair = (stem: string) => ({ cert: join(pkiDir, `${stem}.crt`), key: join(pkiDir, `${stem}.key`) });
  return {
    ca: pair("ca"),
    apiserver: pair("apiserver"),
    apiserverKubeletClient: pair("apiserver-kubelet-client"),
    frontProxyCA: pair("front-proxy-ca"),
    frontProxyClient: pair("front-proxy-client"),
    serviceAccount: { privateKey: join(pkiDir, "sa.key"), publicKey: join(pkiDir, "sa.pub") },
    client: (identity: string) => pair(identity),
  };
};
export type PkiFiles = ReturnType<typeof pkiFiles>;

export async function ensurePki(pkiDir: string): Promise<PkiFiles> {
  await mkdir(pkiDir, { recursive: true, mode: 0o700 });
  const files = pkiFiles(pkiDir);

  const ca = await loadOrCreateCA(files.ca, "kubernetes");
  const renew = ca.created;
  await ensurePair(files.apiserver, renew, () =>
    newServerKeyPair(ca.pair, { commonName: "kube-apiserver", ...apiserverServingNames }),
  );
  // kubeadm's identity for the apiserver calling kubelets (logs, exec): cluster-admin rights.
  await ensurePair(files.apiserverKubeletClient, renew, () =>
    newClientKeyPair(ca.pair, {
      commonName: "kube-apiserver-kubelet-client",
      organizations: ["system:masters"],
    }),
  );
  for (const identity of clientIdentities) {
    await ensurePair(files.client(identity.name), renew, () => newClientKeyPair(ca.pair, identity));
  }

  // The aggregation layer's own CA: extension apiservers trust identity headers only from its client.
  const frontProxyCA = await loadOrCreateCA(files.frontProxyCA, "front-proxy-ca");
  await ensurePair(files.frontProxyClient, frontProxyCA.created, () =>
    newClientKeyPair(frontProxyCA.pair, { commonName: "front-proxy-client" }),
  );

  if (!existsSync(files.serviceAccount.privateKey) || !existsSync(files.serviceAccount.publicKey)) {
    const keys = await newSigningKeyPem();
    await writeFile(files.serviceAccount.privateKey, keys.privateKeyPem, { mode: 0o600 });
    await writeFile(files.serviceAccount.publicKey, keys.publicKeyPem);
  }
  return files;
}

interface PairFiles {
  cert: string;
  key: string;
}

async function loadOrCreateCA(
  files: PairFiles,
  commonName: string,
): Promise<{ pair: CertificateKeyPair; created: boolean }> {
  if (existsSync(files.cert) && existsSync(files.key)) {
    const [certPem, keyPem] = await Promise.all([readFile(files.cert, "utf8"), readFile(files.key, "utf8")]);
    return { pair: await fromPem({ certPem, keyPem }), created: false };
  }
  const pair = await newCA(commonName, { validityMs: TEN_YEARS_MS });
  await writePair(files, pair);
  return { pair, created: true };
}

async function ensurePair(
  files: PairFiles,
  renew: boolean,
  make: () => Promise<CertificateKeyPair>,
): Promise<void> {
  if (!renew && existsSync(files.cert) && existsSync(files.key)) return;
  await writePair(files, await make());
}

async function writePair(files: PairFiles, pair: CertificateKeyPair): Promise<void> {
  const pem = await toPem(pair);
  await writeFile(files.key, pem.keyPem, { mode: 0o600 });
  await writeFile(files.cert, pem.certPem);
}

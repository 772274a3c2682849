// Everything `up` writes before starting a process: folders, certificates, kubeconfigs.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { writeKubeconfig } from "./kubeconfig.js";
import type { Layout } from "./layout.js";
import { binary, componentKubeconfig } from "./layout.js";
import { clientIdentities, ensurePki } from "./pki.js";
import { apiserverURL } from "./topology.js";

export const requiredBinaries = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kube-proxy",
  "kubectl",
  // the cluster DNS add-on's image (deploy/local/cluster/cluster-dns.ts)
  "coredns",
  // dynamic Filesystem volumes (deploy/local/cluster/local-path-storage.ts)
  "local-path-provisioner",
];

export function missingBinaries(l: Layout): string[] {
  return requiredBinaries.filter((name) => !existsSync(binary(l, name)));
}

export async function prepareState(l: Layout): Promise<void> {
  for (const dir of [l.stateDir, l.logsDir, l.pidsDir, l.configDir, l.nodesDir]) {
    await mkdir(dir, { recursive: true });
  }
  await mkdir(l.etcdDataDir, { recursive: true, mode: 0o700 });
  const pki = await ensurePki(l.pkiDir);
  for (const identity of clientIdentities) {
    const files = pki.client(identity.name);
    const path = identity.name === "admin" ? l.adminKubeconfig : componentKubeconfig(l, identity.name);
    await writeKubeconfig(path, {
      server: apiserverURL,
      caFile: pki.ca.cert,
      clientCertFile: files.cert,
      clientKeyFile: files.key,
      userName: identity.name === "admin" ? "kubernetes-admin" : identity.commonName,
    });
  }
}

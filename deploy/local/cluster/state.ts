// Everything `up` writes before starting a process: folders, certificates, kubeconfigs.
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { writeKubeconfig } from "./kubeconfig.js";
import type { Layout } from "./layout.js";
import { binary, componentKubeconfig } from "./layout.js";
import { clientIdentities, ensurePki } from "./pki.js";
import { apiserverURL } from "./topology.js";
import { readLoopDeviceRecords, type LoopDeviceRecord } from "../node-agent/loop-device-record.js";

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
  // pod networking: the node agents' CNI plugins (deploy/local/node-agent/runtime/cni-config.ts)
  "cni/bridge",
  "cni/host-local",
  "cni/loopback",
  "cni/static",
  // the node agents' primary CNI, delegating to the plugins above (deploy/local/node-agent/runtime/multus-config.ts)
  "cni/multus",
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

export type { LoopDeviceRecord };

export function readLoopDevices(l: Layout): Promise<LoopDeviceRecord[]> {
  return readLoopDeviceRecords(l.loopDevicesFile);
}

/** Replaces the records in one rename, so a crash never leaves half a file. */
export async function writeLoopDevices(l: Layout, records: readonly LoopDeviceRecord[]): Promise<void> {
  await mkdir(l.stateDir, { recursive: true });
  const staging = `${l.loopDevicesFile}.new`;
  await writeFile(staging, `${JSON.stringify(records, null, 2)}\n`);
  await rename(staging, l.loopDevicesFile);
}

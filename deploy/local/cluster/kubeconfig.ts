// Kubeconfig files with the credentials embedded, so each one is a single self-contained file.
import { readFile } from "node:fs/promises";
import { stringify } from "yaml";
import { writeIfChanged } from "./write-if-changed.js";

export interface KubeconfigInput {
  server: string;
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** Names the cluster, user and context; "kubevirt-ts" when not given. */
  clusterName?: string;
  userName: string;
}

export async function renderKubeconfig(input: KubeconfigInput): Promise<string> {
  const base64 = async (path: string) => (await readFile(path)).toString("base64");
  const cluster = input.clusterName ?? "kubevirt-ts";
  const context = `${input.userName}@${cluster}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: cluster,
        cluster: { server: input.server, "certificate-authority-data": await base64(input.caFile) },
      },
    ],
    users: [
      {
        name: input.userName,
        user: {
          "client-certificate-data": await base64(input.clientCertFile),
          "client-key-data": await base64(input.clientKeyFile),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster, user: input.userName } }],
    "current-context": context,
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, input: KubeconfigInput): Promise<void> {
  await writeIfChanged(path, await renderKubeconfig(input), 0o600);
}

// The simulated nodes: one node agent per node (deploy/local/node-agent, our kubelet stand-in)
// and kube-proxy. All nodes share the host's network namespace, where kube-proxy's nftables table
// lives; two kube-proxies there would rewrite one table against each other, so one instance
// serves every node (pod traffic to a service IP always crosses the host's netfilter).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import type { Layout } from "./layout.js";
import { binary, componentKubeconfig } from "./layout.js";
import { MULTUS_USER } from "./multus.js";
import { defaultNodeSize, nodeSizeFlags, type NodeSize } from "./node-size.js";
import { pkiFiles } from "./pki.js";
import type { ProcessSpec } from "./supervisor.js";
import type { NodeSpec } from "./topology.js";
import { topology } from "./topology.js";
import { writeIfChanged } from "./write-if-changed.js";

export const nodeAgentMain = (l: Layout): string => join(l.repoRoot, "deploy/local/node-agent/main.ts");
export const nodeAgentName = (node: NodeSpec): string => `node-agent-${node.name}`;
export const nodeStateDir = (l: Layout, node: NodeSpec): string => join(l.nodesDir, node.name);

export function nodeAgent(l: Layout, node: NodeSpec, size: NodeSize = defaultNodeSize): ProcessSpec {
  const pki = pkiFiles(l.pkiDir);
  return {
    name: nodeAgentName(node),
    // node with tsx's loader directly: one process to track, no npx/tsx wrapper in between
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      nodeAgentMain(l),
      ...["--node", node.name],
      ...["--pod-cidr", node.podCIDR],
      ...["--kubeconfig", componentKubeconfig(l, node.name)],
      // multus's own identity (user multus, bound to its ClusterRole: multus.ts)
      ...["--multus-kubeconfig", componentKubeconfig(l, MULTUS_USER)],
      ...["--state-dir", nodeStateDir(l, node)],
      // the loop devices `up` attached: the agent recycles its node's Released local-block PVs over them
      ...["--loop-devices", l.loopDevicesFile],
      // the agent signs its kubelet serving certificate (logs endpoint) with the cluster CA
      ...["--ca-cert", pki.ca.cert],
      ...["--ca-key", pki.ca.key],
      // kubelet's resolv.conf settings: the kube-dns Service (deploy/local/cluster/cluster-dns.ts)
      ...["--cluster-dns", topology.clusterDNSIP],
      ...["--cluster-domain", topology.clusterDomain],
      ...nodeSizeFlags(size),
      ...["--component-images", l.componentImages],
    ],
  };
}

export const kubeProxyConfigPath = (l: Layout): string => join(l.configDir, "kube-proxy.yaml");

export function kubeProxy(l: Layout): ProcessSpec {
  return {
    name: "kube-proxy",
    command: binary(l, "kube-proxy"),
    args: [`--config=${kubeProxyConfigPath(l)}`],
  };
}

/** kube-proxy's configuration; it leaves the host's conntrack sysctls alone. */
export function kubeProxyConfiguration(l: Layout, hostname: string): Record<string, unknown> {
  return {
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    clientConnection: { kubeconfig: componentKubeconfig(l, "kube-proxy") },
    hostnameOverride: hostname,
    mode: "nftables",
    clusterCIDR: topology.clusterCIDR,
    // NodePorts only on the node bridges, never on the machine's outside interface
    nodePortAddresses: [topology.clusterCIDR],
    healthzBindAddress: "127.0.0.1:10256",
    metricsBindAddress: "127.0.0.1:10249",
    // Pods of one node share a bridge: without masquerading, a backend's reply to a client on the
    // same bridge would skip the host's conntrack and never be translated back.
    nftables: { masqueradeAll: true },
    conntrack: { maxPerCore: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
  };
}

export async function writeKubeProxyConfig(l: Layout): Promise<void> {
  await mkdir(l.configDir, { recursive: true });
  const firstNode = topology.nodes[0].name;
  await writeIfChanged(kubeProxyConfigPath(l), stringify(kubeProxyConfiguration(l, firstNode)));
}

export const nodeAgentAvailable = (l: Layout): boolean => existsSync(nodeAgentMain(l));

// The one-machine cluster's addresses and names, in one place. Every range is private to this
// machine: the control plane listens on a dummy link, pods live behind per-node bridges.

export interface NodeSpec {
  name: string;
  /** The node's pod range; its first address sits on the node's bridge and is the Node's InternalIP. */
  podCIDR: string;
}

const nodes: readonly [NodeSpec, ...NodeSpec[]] = [
  { name: "node01", podCIDR: "10.244.1.0/24" },
  { name: "node02", podCIDR: "10.244.2.0/24" },
];

export const topology = {
  /** Dummy link holding the apiserver's advertise address (never the machine's outside interface). */
  controlPlaneLink: "kvts0",
  advertiseAddress: "10.243.0.1",
  apiserverPort: 6443,
  serviceCIDR: "10.96.0.0/16",
  /** The `kubernetes` Service's cluster IP: the first address of the service range. */
  kubernetesServiceIP: "10.96.0.1",
  /** The `kube-dns` Service's cluster IP, kubelet's --cluster-dns (kubeadm's choice: the tenth address). */
  clusterDNSIP: "10.96.0.10",
  clusterCIDR: "10.244.0.0/16",
  clusterDomain: "cluster.local",
  etcd: { clientPort: 2379, peerPort: 2380, metricsPort: 2381 },
  /** Two nodes, so scheduling and live migration are real. */
  nodes,
} as const;

export const apiserverURL = `https://${topology.advertiseAddress}:${topology.apiserverPort}`;

/** Every name the apiserver's serving certificate must answer to. */
export const apiserverServingNames = {
  dnsNames: [
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    `kubernetes.default.svc.${topology.clusterDomain}`,
    "localhost",
  ],
  ipAddresses: [topology.advertiseAddress, topology.kubernetesServiceIP, "127.0.0.1"],
};

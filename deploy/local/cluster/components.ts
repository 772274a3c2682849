// Command lines of the control-plane processes: envtest's flags plus what a real cluster needs
// (RBAC + Node authorization, admission webhooks, service accounts, the aggregation layer's
// front proxy). Pure functions of the layout, so tests can read them without starting anything.
import type { Layout } from "./layout.js";
import { binary, componentKubeconfig } from "./layout.js";
import { pkiFiles } from "./pki.js";
import type { ProcessSpec } from "./supervisor.js";
import { topology } from "./topology.js";

const etcdURL = (port: number) => `http://127.0.0.1:${port}`;

/** Flags as `--name=value` in the order given; a readable table beats a long string. */
export function flagList(flags: Record<string, string | number | boolean>): string[] {
  return Object.entries(flags).map(([name, value]) => `--${name}=${String(value)}`);
}

export function etcd(l: Layout): ProcessSpec {
  const { clientPort, peerPort, metricsPort } = topology.etcd;
  return {
    name: "etcd",
    command: binary(l, "etcd"),
    args: flagList({
      name: "kubevirt-ts",
      "data-dir": l.etcdDataDir,
      // loopback only: nothing but the apiserver talks to etcd
      "listen-client-urls": etcdURL(clientPort),
      "advertise-client-urls": etcdURL(clientPort),
      "listen-peer-urls": etcdURL(peerPort),
      "initial-advertise-peer-urls": etcdURL(peerPort),
      "initial-cluster": `kubevirt-ts=${etcdURL(peerPort)}`,
      "listen-metrics-urls": etcdURL(metricsPort),
      // a throw-away development cluster on a shared disk: as envtest, trade durability for speed
      "unsafe-no-fsync": true,
      "log-level": "warn",
    }),
  };
}

export function kubeApiserver(l: Layout): ProcessSpec {
  const pki = pkiFiles(l.pkiDir);
  return {
    name: "kube-apiserver",
    command: binary(l, "kube-apiserver"),
    args: flagList({
      "advertise-address": topology.advertiseAddress,
      "bind-address": topology.advertiseAddress,
      "secure-port": topology.apiserverPort,
      "etcd-servers": etcdURL(topology.etcd.clientPort),
      "tls-cert-file": pki.apiserver.cert,
      "tls-private-key-file": pki.apiserver.key,
      "client-ca-file": pki.ca.cert,
      "authorization-mode": "Node,RBAC",
      // the defaults already hold the webhook plugins; naming them documents that they must be on
      "enable-admission-plugins": "NodeRestriction,MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
      "allow-privileged": true,
      "service-cluster-ip-range": topology.serviceCIDR,
      "service-account-issuer": `https://kubernetes.default.svc.${topology.clusterDomain}`,
      "service-account-key-file": pki.serviceAccount.publicKey,
      "service-account-signing-key-file": pki.serviceAccount.privateKey,
      "kubelet-client-certificate": pki.apiserverKubeletClient.cert,
      "kubelet-client-key": pki.apiserverKubeletClient.key,
      "kubelet-preferred-address-types": "InternalIP,Hostname",
      // the aggregation layer: identity headers are trusted only from front-proxy-client
      "requestheader-client-ca-file": pki.frontProxyCA.cert,
      "requestheader-allowed-names": "front-proxy-client",
      "requestheader-username-headers": "X-Remote-User",
      "requestheader-group-headers": "X-Remote-Group",
      "requestheader-extra-headers-prefix": "X-Remote-Extra-",
      "proxy-client-cert-file": pki.frontProxyClient.cert,
      "proxy-client-key-file": pki.frontProxyClient.key,
      // webhooks and APIServices are reached at their endpoints' pod IPs, routable from the host
      "enable-aggregator-routing": true,
    }),
  };
}

export function kubeControllerManager(l: Layout): ProcessSpec {
  const pki = pkiFiles(l.pkiDir);
  const kubeconfig = componentKubeconfig(l, "kube-controller-manager");
  return {
    name: "kube-controller-manager",
    command: binary(l, "kube-controller-manager"),
    args: flagList({
      kubeconfig,
      "authentication-kubeconfig": kubeconfig,
      "authorization-kubeconfig": kubeconfig,
      "bind-address": "127.0.0.1",
      "client-ca-file": pki.ca.cert,
      "requestheader-client-ca-file": pki.frontProxyCA.cert,
      "root-ca-file": pki.ca.cert,
      "service-account-private-key-file": pki.serviceAccount.privateKey,
      "use-service-account-credentials": true,
      "cluster-signing-cert-file": pki.ca.cert,
      "cluster-signing-key-file": pki.ca.key,
      // every default controller (garbage collector, namespace, serviceaccount-token, deployment,
      // replicaset, daemonset, endpointslice, nodelifecycle, ...) plus kubeadm's two extras
      controllers: "*,bootstrapsigner,tokencleaner",
      // node agents assign their own pod CIDRs, as the topology fixes them
      "allocate-node-cidrs": false,
      "cluster-cidr": topology.clusterCIDR,
      "service-cluster-ip-range": topology.serviceCIDR,
    }),
  };
}

export function kubeScheduler(l: Layout): ProcessSpec {
  const kubeconfig = componentKubeconfig(l, "kube-scheduler");
  return {
    name: "kube-scheduler",
    command: binary(l, "kube-scheduler"),
    args: flagList({
      kubeconfig,
      "authentication-kubeconfig": kubeconfig,
      "authorization-kubeconfig": kubeconfig,
      "bind-address": "127.0.0.1",
    }),
  };
}

/** The control plane in start order; stop in reverse. */
export const controlPlane = (l: Layout): ProcessSpec[] => [
  etcd(l),
  kubeApiserver(l),
  kubeControllerManager(l),
  kubeScheduler(l),
];

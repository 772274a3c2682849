import { describe, expect, it } from "vitest";
import { etcd, flagList, kubeApiserver, kubeControllerManager, kubeScheduler } from "./components.js";
import { layout } from "./layout.js";
import { kubeProxyConfiguration } from "./nodes.js";

const l = layout("/checkout", { HOME: "/home/user" });

/** The flags of a command line as a map; a repeated flag would be a bug, so it throws. */
function flagsOf(args: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (const arg of args) {
    const match = /^--([^=]+)=(.*)$/.exec(arg);
    if (!match?.[1] || match[2] === undefined) throw new Error(`not a --name=value flag: ${arg}`);
    if (flags.has(match[1])) throw new Error(`flag given twice: ${match[1]}`);
    flags.set(match[1], match[2]);
  }
  return flags;
}

describe("flagList", () => {
  it("renders --name=value in the given order", () => {
    expect(flagList({ b: 1, a: true, c: "x" })).toEqual(["--b=1", "--a=true", "--c=x"]);
  });
});

describe("kube-apiserver", () => {
  const flags = flagsOf(kubeApiserver(l).args);

  it.each([
    ["advertise-address", "10.243.0.1"],
    ["bind-address", "10.243.0.1"],
    ["secure-port", "6443"],
    ["authorization-mode", "Node,RBAC"],
    ["service-cluster-ip-range", "10.96.0.0/16"],
    ["requestheader-allowed-names", "front-proxy-client"],
    ["requestheader-username-headers", "X-Remote-User"],
    ["requestheader-group-headers", "X-Remote-Group"],
    ["requestheader-extra-headers-prefix", "X-Remote-Extra-"],
    ["enable-aggregator-routing", "true"],
    ["allow-privileged", "true"],
    ["etcd-servers", "http://127.0.0.1:2379"],
    ["client-ca-file", "/checkout/.local/pki/ca.crt"],
    ["requestheader-client-ca-file", "/checkout/.local/pki/front-proxy-ca.crt"],
    ["proxy-client-cert-file", "/checkout/.local/pki/front-proxy-client.crt"],
    ["service-account-signing-key-file", "/checkout/.local/pki/sa.key"],
    ["service-account-key-file", "/checkout/.local/pki/sa.pub"],
    ["kubelet-client-certificate", "/checkout/.local/pki/apiserver-kubelet-client.crt"],
  ])("sets --%s=%s", (name, value) => {
    expect(flags.get(name)).toBe(value);
  });

  it("enables both admission webhook plugins and NodeRestriction", () => {
    expect(flags.get("enable-admission-plugins")?.split(",")).toEqual(
      expect.arrayContaining(["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "NodeRestriction"]),
    );
  });

  it("runs the binary from the user's cache, not from the checkout", () => {
    expect(kubeApiserver(l).command).toBe("/home/user/.cache/kubevirt-ts/bin/kube-apiserver");
  });
});

describe("etcd", () => {
  it("listens on loopback only", () => {
    const flags = flagsOf(etcd(l).args);
    const urls = [...flags].filter(([name]) => name.endsWith("-urls")).map(([, value]) => new URL(value));
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) expect(url.hostname).toBe("127.0.0.1");
    expect(flags.get("data-dir")).toBe("/checkout/.local/etcd");
  });
});

describe("kube-controller-manager and kube-scheduler", () => {
  it("leaves pod CIDRs to the node agents and signs tokens with the service-account key", () => {
    const flags = flagsOf(kubeControllerManager(l).args);
    expect(flags.get("allocate-node-cidrs")).toBe("false");
    expect(flags.get("service-account-private-key-file")).toBe("/checkout/.local/pki/sa.key");
    expect(flags.get("root-ca-file")).toBe("/checkout/.local/pki/ca.crt");
    expect(flags.get("controllers")?.split(",")).toContain("*");
  });

  it.each([kubeControllerManager(l), kubeScheduler(l)])(
    "$name serves on loopback with its own kubeconfig",
    (spec) => {
      const flags = flagsOf(spec.args);
      expect(flags.get("bind-address")).toBe("127.0.0.1");
      expect(flags.get("kubeconfig")).toBe(`/checkout/.local/config/${spec.name}.kubeconfig`);
    },
  );
});

describe("kube-proxy configuration", () => {
  const config = kubeProxyConfiguration(l, "node01");

  it("programs nftables and keeps NodePorts off the outside interface", () => {
    expect(config).toMatchObject({
      kind: "KubeProxyConfiguration",
      mode: "nftables",
      hostnameOverride: "node01",
      nodePortAddresses: ["10.244.0.0/16"],
      nftables: { masqueradeAll: true },
    });
  });

  it("leaves the host's conntrack sysctls as they are", () => {
    expect(config.conntrack).toEqual({
      maxPerCore: 0,
      tcpEstablishedTimeout: "0s",
      tcpCloseWaitTimeout: "0s",
    });
  });
});

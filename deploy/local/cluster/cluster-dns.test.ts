import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { clusterDNSObjects, corefile, renderClusterDNS } from "./cluster-dns.js";
import { matchLocalImage } from "../node-agent/runtime/image-store.js";
import { parseImageReference } from "../node-agent/runtime/image-reference.js";

const byKind = (kind: string) => clusterDNSObjects().find((object) => object.kind === kind);

describe("the cluster DNS add-on", () => {
  it("renders the committed manifest (review any change to it)", async () => {
    await expect(renderClusterDNS()).toMatchFileSnapshot("testdata/cluster-dns.yaml");
  });

  it("renders YAML that reads back as the same objects", () => {
    const documents = parseAllDocuments(renderClusterDNS()).map((document) => document.toJSON() as unknown);
    expect(documents).toEqual(JSON.parse(JSON.stringify(clusterDNSObjects())));
  });

  it("puts kube-dns at the cluster DNS address with kubeadm's three ports, selecting the CoreDNS pods", () => {
    const service = clusterDNSObjects().find((object) => object.kind === "Service");
    expect(service).toMatchObject({
      metadata: { name: "kube-dns", namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
      spec: {
        clusterIP: "10.96.0.10",
        selector: { "k8s-app": "kube-dns" },
        ports: [
          { name: "dns", port: 53, protocol: "UDP" },
          { name: "dns-tcp", port: 53, protocol: "TCP" },
          { name: "metrics", port: 9153, protocol: "TCP" },
        ],
      },
    });
  });

  it("runs kube-system/coredns with the Corefile mounted, under the coredns account bound to system:coredns", () => {
    expect(byKind("Deployment")).toMatchObject({
      metadata: { name: "coredns", namespace: "kube-system" },
      spec: {
        template: {
          metadata: { labels: { "k8s-app": "kube-dns" } },
          spec: {
            serviceAccountName: "coredns",
            dnsPolicy: "Default",
            containers: [
              { args: ["-conf", "/etc/coredns/Corefile"], volumeMounts: [{ mountPath: "/etc/coredns" }] },
            ],
          },
        },
      },
    });
    expect(byKind("ClusterRoleBinding")).toMatchObject({
      roleRef: { kind: "ClusterRole", name: "system:coredns" },
      subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: "kube-system" }],
    });
    expect(byKind("ClusterRole")).toMatchObject({
      metadata: { name: "system:coredns" },
      rules: [
        { resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
        { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"] },
      ],
    });
  });

  it("names an image the local image store maps to the built CoreDNS", () => {
    const deployment = byKind("Deployment") as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    const image = deployment.spec.template.spec.containers[0]?.image ?? "";
    expect(image).toMatch(/^registry\.k8s\.io\/coredns\/coredns:v1\./);
    expect(matchLocalImage(parseImageReference(image))).toMatchObject({ kind: "binary", name: "coredns" });
  });
});

describe("corefile", () => {
  const text = corefile("cluster.local");

  it("serves the cluster domain and the reverse zones through the kubernetes plugin", () => {
    expect(text).toContain("kubernetes cluster.local in-addr.arpa ip6.arpa {");
    for (const plugin of [
      "errors",
      "health {",
      "ready",
      "prometheus :9153",
      "cache 30 {",
      "loop",
      "reload",
      "loadbalance",
    ])
      expect(text).toContain(`    ${plugin}\n`);
  });

  it("forwards nothing anywhere: no forward, grpc or other upstream plugin", () => {
    expect(text).not.toMatch(/^\s*(forward|grpc|proxy|https?)\b/m);
    expect(text).not.toContain("/etc/resolv.conf");
  });

  it("follows the configured domain", () => {
    expect(corefile("example.internal")).toContain("kubernetes example.internal in-addr.arpa ip6.arpa {");
    expect(corefile("example.internal")).toContain("disable success example.internal");
  });
});

import { describe, expect, it } from "vitest";
import { mergeDNSOptions, parseResolvConf, podDNS, type DNSSettings, type PodDNSInput } from "./pod-dns.js";

const HOST_RESOLV_CONF = [
  "# written by the host",
  "nameserver 192.0.2.53",
  "nameserver 192.0.2.54",
  "search corp.example. lab.example",
  "options timeout:2 attempts:3",
  "",
].join("\n");

const cluster: DNSSettings = {
  clusterDNS: ["10.96.0.10"],
  clusterDomain: "cluster.local",
  hostDNS: parseResolvConf(HOST_RESOLV_CONF),
};

const CLUSTER_SEARCHES = ["web.svc.cluster.local", "svc.cluster.local", "cluster.local"];
const HOST = {
  servers: ["192.0.2.53", "192.0.2.54"],
  searches: ["corp.example", "lab.example"],
  options: ["timeout:2", "attempts:3"],
};

function pod(spec: PodDNSInput["spec"]): PodDNSInput {
  return { metadata: { name: "p", namespace: "web", uid: "u1" }, spec };
}

describe("parseResolvConf", () => {
  it("accumulates nameservers, keeps the last search and options lines, drops trailing dots", () => {
    expect(
      parseResolvConf(
        "search a.example\nnameserver 1.1.1.1\n#nameserver 9.9.9.9\nsearch b. c\nnameserver 2.2.2.2\noptions ndots:1\noptions rotate\n",
      ),
    ).toEqual({ servers: ["1.1.1.1", "2.2.2.2"], searches: ["b", "c"], options: ["rotate"] });
  });
});

describe("podDNS", () => {
  it.each<
    [string, PodDNSInput["spec"], DNSSettings, { servers: string[]; searches: string[]; options: string[] }]
  >([
    [
      "ClusterFirst: the cluster DNS alone, the cluster search path before the host's, ndots:5",
      { dnsPolicy: "ClusterFirst" },
      cluster,
      { servers: ["10.96.0.10"], searches: [...CLUSTER_SEARCHES, ...HOST.searches], options: ["ndots:5"] },
    ],
    [
      "no dnsPolicy is ClusterFirst (the apiserver's default)",
      {},
      cluster,
      { servers: ["10.96.0.10"], searches: [...CLUSTER_SEARCHES, ...HOST.searches], options: ["ndots:5"] },
    ],
    [
      "ClusterFirst on the host network falls back to Default",
      { dnsPolicy: "ClusterFirst", hostNetwork: true },
      cluster,
      HOST,
    ],
    [
      "ClusterFirstWithHostNet on the host network uses the cluster DNS",
      { dnsPolicy: "ClusterFirstWithHostNet", hostNetwork: true },
      cluster,
      { servers: ["10.96.0.10"], searches: [...CLUSTER_SEARCHES, ...HOST.searches], options: ["ndots:5"] },
    ],
    ["Default: the node's resolv.conf", { dnsPolicy: "Default" }, cluster, HOST],
    [
      "Default without a node resolv.conf (--resolv-conf=''): localhost and the root search",
      { dnsPolicy: "Default" },
      { ...cluster, hostDNS: undefined },
      { servers: ["127.0.0.1"], searches: ["."], options: [] },
    ],
    [
      "None: only what dnsConfig says",
      {
        dnsPolicy: "None",
        dnsConfig: {
          nameservers: ["10.0.0.2"],
          searches: ["x.example"],
          options: [{ name: "ndots", value: "2" }],
        },
      },
      cluster,
      { servers: ["10.0.0.2"], searches: ["x.example"], options: ["ndots:2"] },
    ],
    [
      "dnsConfig merges into ClusterFirst: duplicates once, pod options override by name",
      {
        dnsConfig: {
          nameservers: ["10.96.0.10", "10.0.0.2"],
          searches: ["svc.cluster.local", "extra.example"],
          options: [{ name: "ndots", value: "1" }, { name: "edns0" }],
        },
      },
      cluster,
      {
        servers: ["10.96.0.10", "10.0.0.2"],
        searches: [...CLUSTER_SEARCHES, ...HOST.searches, "extra.example"],
        options: ["ndots:1", "edns0"],
      },
    ],
    [
      "no cluster domain: the host's search path only",
      {},
      { ...cluster, clusterDomain: "" },
      { servers: ["10.96.0.10"], searches: HOST.searches, options: ["ndots:5"] },
    ],
  ])("%s", (_name, spec, settings, expected) => {
    const result = podDNS(pod(spec), settings);
    expect(result.config).toEqual(expected);
    expect(result.warnings).toEqual([]);
  });

  it("falls back to Default with kubelet's MissingClusterDNS warning when no cluster DNS is configured", () => {
    const result = podDNS(pod({ dnsPolicy: "ClusterFirst" }), { ...cluster, clusterDNS: [] });
    expect(result.config).toEqual(HOST);
    expect(result.warnings).toEqual([
      {
        reason: "MissingClusterDNS",
        message:
          'pod: "p_web(u1)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.',
      },
    ]);
  });

  it("keeps three nameservers and says which", () => {
    const result = podDNS(
      pod({
        dnsPolicy: "None",
        dnsConfig: { nameservers: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"] },
      }),
      cluster,
    );
    expect(result.config.servers).toEqual(["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
    expect(result.warnings).toEqual([
      {
        reason: "DNSConfigForming",
        message:
          "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.0.0.1 10.0.0.2 10.0.0.3",
      },
    ]);
  });

  it("drops over-long search domains and cuts the list to 32 paths", () => {
    const searches = [`${"a".repeat(254)}.example`, ...Array.from({ length: 40 }, (_, i) => `d${i}.example`)];
    const result = podDNS(
      pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["10.0.0.1"], searches } }),
      cluster,
    );
    expect(result.config.searches).toEqual(Array.from({ length: 31 }, (_, i) => `d${i}.example`));
    expect(result.warnings.map((w) => w.reason)).toEqual(["DNSConfigForming"]);
  });

  it("cuts domains from the end until the search line fits 2048 characters", () => {
    const searches = Array.from({ length: 10 }, (_, i) => `${String(i).repeat(250)}.x`);
    const result = podDNS(
      pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["10.0.0.1"], searches } }),
      cluster,
    );
    expect(result.config.searches).toEqual(searches.slice(0, 8));
    expect(result.config.searches.join(" ").length).toBeLessThanOrEqual(2048);
  });
});

describe("mergeDNSOptions", () => {
  it.each([
    [["ndots:5"], [{ name: "ndots", value: "2" }], ["ndots:2"]],
    [
      ["rotate", "ndots:5"],
      [{ name: "rotate" }, { name: "timeout", value: "1" }],
      ["rotate", "ndots:5", "timeout:1"],
    ],
    [[], [{ name: "single-request-reopen" }], ["single-request-reopen"]],
  ])("%j + %j = %j", (base, pod, expected) => expect(mergeDNSOptions(base, pod)).toEqual(expected));
});

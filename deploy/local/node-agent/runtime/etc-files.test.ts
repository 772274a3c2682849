import { describe, expect, it } from "vitest";
import { hostNetworkHostsFile, hostnameFile, podHostsFile, resolvConfFile } from "./etc-files.js";

describe("etc files", () => {
  it("writes kubelet's managed hosts file with the pod's address and name", () => {
    expect(podHostsFile(["10.244.1.7"], "web-0").split("\n")).toEqual([
      "# Kubernetes-managed hosts file.",
      "127.0.0.1\tlocalhost",
      "::1\tlocalhost ip6-localhost ip6-loopback",
      "fe00::0\tip6-localnet",
      "fe00::0\tip6-mcastprefix",
      "fe00::1\tip6-allnodes",
      "fe00::2\tip6-allrouters",
      "10.244.1.7\tweb-0",
      "",
    ]);
  });

  it("keeps the node's hosts file for hostNetwork pods", () => {
    expect(hostNetworkHostsFile("127.0.0.1 localhost\n")).toBe(
      "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n",
    );
  });

  it("ends the hostname file with a newline", () => {
    expect(hostnameFile("web-0")).toBe("web-0\n");
  });

  it.each([
    [
      "search, nameservers, options in containerd's order",
      {
        servers: ["10.96.0.10", "10.0.0.2"],
        searches: ["web.svc.cluster.local", "svc.cluster.local"],
        options: ["ndots:5", "edns0"],
      },
      "search web.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver 10.0.0.2\noptions ndots:5 edns0\n",
    ],
    ["only nameservers", { servers: ["10.0.0.2"], searches: [], options: [] }, "nameserver 10.0.0.2\n"],
    ["nothing (the node's file is used instead)", { servers: [], searches: [], options: [] }, ""],
  ])("writes resolv.conf: %s", (_name, dns, expected) => {
    expect(resolvConfFile(dns)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { firstAddress, parseFlags } from "./flags.js";

const required = [
  "--node",
  "node01",
  "--pod-cidr",
  "10.244.1.0/24",
  "--kubeconfig",
  "/k",
  "--state-dir",
  "/s",
  "--ca-cert",
  "/ca.crt",
  "--ca-key",
  "/ca.key",
];

describe("parseFlags", () => {
  it("takes the node IP from the pod CIDR and applies kubelet's defaults", () => {
    expect(parseFlags(required)).toEqual({
      node: "node01",
      podCIDR: "10.244.1.0/24",
      kubeconfig: "/k",
      stateDir: "/s",
      caCert: "/ca.crt",
      caKey: "/ca.key",
      nodeIP: "10.244.1.1",
      kubeletPort: 10250,
      apiServiceIP: "10.96.0.1",
      apiServicePort: 443,
      clusterDNS: [],
      clusterDomain: "",
      resolvConf: "/etc/resolv.conf",
      cpus: 8,
      memory: 16 * 1024 ** 3,
      maxPods: 110,
      componentImages: "checkout",
    });
  });

  it("runs component images from the built images or from the checkout, nothing else", () => {
    expect(parseFlags([...required, "--component-images", "built"]).componentImages).toBe("built");
    expect(() => parseFlags([...required, "--component-images", "host"])).toThrow(
      /--component-images: must be "built" or "checkout"/,
    );
  });

  it("reads multus's kubeconfig, and refuses an empty one", () => {
    expect(parseFlags([...required, "--multus-kubeconfig", "/m"]).multusKubeconfig).toBe("/m");
    expect(parseFlags(required).multusKubeconfig).toBeUndefined();
    expect(() => parseFlags([...required, "--multus-kubeconfig", ""])).toThrow(/--multus-kubeconfig:/);
  });

  it("reads the loop-device record's path, and refuses an empty one", () => {
    expect(parseFlags([...required, "--loop-devices", "/l.json"]).loopDevices).toBe("/l.json");
    expect(parseFlags(required).loopDevices).toBeUndefined();
    expect(() => parseFlags([...required, "--loop-devices", ""])).toThrow(/--loop-devices:/);
  });

  it("reads kubelet's DNS flags", () => {
    const flags = parseFlags([
      ...required,
      ...["--cluster-dns", "10.96.0.10,10.96.0.11", "--cluster-domain", "cluster.local", "--resolv-conf", ""],
    ]);
    expect(flags).toMatchObject({
      clusterDNS: ["10.96.0.10", "10.96.0.11"],
      clusterDomain: "cluster.local",
      resolvConf: "",
    });
  });

  it.each([
    [
      ["--cpus", "16", "--memory", "32Gi", "--max-pods", "250"],
      { cpus: 16, memory: 32 * 1024 ** 3, maxPods: 250 },
    ],
    [["--memory", "17179869184"], { cpus: 8, memory: 16 * 1024 ** 3, maxPods: 110 }],
    [["--memory", "16G"], { memory: 16e9 }],
  ])("declares the node size from %j", (args, size) => {
    expect(parseFlags([...required, ...args])).toMatchObject(size);
  });

  it.each([
    [["--cpus", "1.5"], /--cpus: must be a whole number of CPUs/],
    [["--cpus", "0"], /--cpus:/],
    [["--memory", "lots"], /--memory: must be a quantity such as 16Gi/],
    [["--max-pods", "0"], /--max-pods:/],
    [["--cluster-dns", "10.96.0.10,dns"], /--cluster-dns: must be a comma-separated list of IPv4 addresses/],
  ])("refuses %j", (args, message) => {
    expect(() => parseFlags([...required, ...args])).toThrow(message);
  });

  it("names every missing or malformed flag", () => {
    expect(() => parseFlags(["--node", "Node_1", "--pod-cidr", "10.244.1.0"])).toThrow(
      /--node: must be a DNS-1123 subdomain[\s\S]*--pod-cidr: must be an IPv4 CIDR[\s\S]*--kubeconfig: is required/,
    );
  });

  it.each([
    ["10.244.2.0/24", "10.244.2.1"],
    ["10.244.2.77/24", "10.244.2.1"],
    ["192.168.0.0/16", "192.168.0.1"],
  ])("first address of %s is %s", (cidr, ip) => expect(firstAddress(cidr)).toBe(ip));
});

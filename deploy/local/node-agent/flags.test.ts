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
    });
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

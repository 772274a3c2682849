import { describe, expect, it } from "vitest";
import { componentPods, missingComponents, type Pod } from "./pods.js";

const pod = (name: string, component: string, node: string, phase = "Running", extra = {}): Pod => ({
  metadata: { name, uid: `uid-${name}`, labels: { "kubevirt.io": component }, ...extra },
  spec: { nodeName: node },
  status: { phase },
});

describe("component pods", () => {
  it("takes the running pods of the four components, in order, and marks the lease holders", () => {
    const pods = [
      pod("virt-handler-b", "virt-handler", "node02"),
      pod("virt-operator-x", "virt-operator", "node01"),
      pod("virt-controller-2", "virt-controller", "node01"),
      pod("virt-controller-1", "virt-controller", "node01"),
      pod("virt-handler-a", "virt-handler", "node01"),
      pod("virt-launcher-demo", "virt-launcher", "node02"),
      pod("virt-api-old", "virt-api", "node01", "Running", { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      pod("virt-api-new", "virt-api", "node01", "Pending"),
      pod("virt-api-1", "virt-api", "node01"),
    ];
    const leases = [{ spec: { holderIdentity: "virt-controller-2" } }, { spec: {} }];
    expect(componentPods(pods, leases).map((p) => [p.component, p.name, p.node, p.leader])).toEqual([
      ["virt-api", "virt-api-1", "node01", false],
      ["virt-controller", "virt-controller-1", "node01", false],
      ["virt-controller", "virt-controller-2", "node01", true],
      ["virt-handler", "virt-handler-a", "node01", false],
      ["virt-handler", "virt-handler-b", "node02", false],
      ["virt-operator", "virt-operator-x", "node01", false],
    ]);
  });

  it("names the components without a running pod", () => {
    const found = componentPods([pod("virt-api-1", "virt-api", "node01")], []);
    expect(missingComponents(found)).toEqual(["virt-controller", "virt-handler", "virt-operator"]);
  });
});

import { describe, expect, it } from "vitest";
import { apiVersionOf, coreGVR, resourcePath, type GroupVersionResource } from "./gvr.js";

const vmis: GroupVersionResource = {
  group: "kubevirt.io",
  version: "v1",
  resource: "virtualmachineinstances",
  namespaced: true,
};

describe("resourcePath", () => {
  it.each([
    [coreGVR.pods, {}, "/api/v1/pods"],
    [coreGVR.pods, { namespace: "ns" }, "/api/v1/namespaces/ns/pods"],
    [
      coreGVR.pods,
      { namespace: "ns", name: "p", subresource: "status" },
      "/api/v1/namespaces/ns/pods/p/status",
    ],
    [coreGVR.nodes, { name: "node01" }, "/api/v1/nodes/node01"],
    [coreGVR.nodes, { namespace: "ignored", name: "node01" }, "/api/v1/nodes/node01"],
    [vmis, {}, "/apis/kubevirt.io/v1/virtualmachineinstances"],
    [
      vmis,
      { namespace: "d", name: "a b" },
      "/apis/kubevirt.io/v1/namespaces/d/virtualmachineinstances/a%20b",
    ],
    [
      coreGVR.leases,
      { namespace: "kubevirt", name: "virt-controller" },
      "/apis/coordination.k8s.io/v1/namespaces/kubevirt/leases/virt-controller",
    ],
  ])("%j %j -> %s", (gvr, opts, path) => {
    expect(resourcePath(gvr, opts)).toBe(path);
  });

  it("refuses a namespaced object without namespace, and a subresource without name", () => {
    expect(() => resourcePath(coreGVR.pods, { name: "p" })).toThrow(/namespace is required/);
    expect(() => resourcePath(coreGVR.pods, { namespace: "n", subresource: "status" })).toThrow(
      /object name/,
    );
  });
});

describe("apiVersionOf", () => {
  it("omits the empty core group", () => {
    expect(apiVersionOf(coreGVR.pods)).toBe("v1");
    expect(apiVersionOf(vmis)).toBe("kubevirt.io/v1");
  });
});

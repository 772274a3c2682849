import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { netAttachDefNamespacedName, networkToResource, RESOURCE_NAME_ANNOTATION } from "./nad.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default" },
  spec: {
    domain: { devices: {} },
    networks: [
      { name: "default", pod: {} },
      { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
      { name: "sriov", multus: { networkName: "sriov-nad" } },
    ],
  },
};

describe("network attachment definitions", () => {
  it("splits <namespace>/<name>, else takes the VMI's namespace", () => {
    expect(netAttachDefNamespacedName("default", "ns1/attachnet1")).toEqual({
      namespace: "ns1",
      name: "attachnet1",
    });
    expect(netAttachDefNamespacedName("default", "attachnet2")).toEqual({
      namespace: "default",
      name: "attachnet2",
    });
  });

  it("reads each multus network's NAD for its resource name", async () => {
    const asked: string[] = [];
    const resources = await networkToResource(async (namespace, name) => {
      asked.push(`${namespace}/${name}`);
      const annotations = name === "sriov-nad" ? { [RESOURCE_NAME_ANNOTATION]: "intel.com/sriov" } : {};
      return { metadata: { name, namespace, annotations } };
    }, vmi);
    expect(asked).toEqual(["ns1/attachnet1", "default/sriov-nad"]);
    expect(resources).toEqual(
      new Map([
        ["attachnet1", ""],
        ["sriov", "intel.com/sriov"],
      ]),
    );
  });

  it("fails with upstream's text when a NAD cannot be read", async () => {
    await expect(
      networkToResource(async () => Promise.reject(new Error("404 NotFound")), vmi),
    ).rejects.toThrow("failed to locate network attachment definition ns1/attachnet1");
  });
});

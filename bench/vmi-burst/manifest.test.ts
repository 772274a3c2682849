import { describe, expect, it } from "vitest";
import { burstNames, burstVMI } from "./manifest.js";

describe("the burst's VMIs", () => {
  it("are named burst-0001 on, sorting as they were created", () => {
    expect(burstNames(3)).toEqual(["burst-0001", "burst-0002", "burst-0003"]);
    expect(burstNames(100).at(-1)).toBe("burst-0100");
    const many = burstNames(12_345);
    expect(many[0]).toBe("burst-00001");
    expect([...many].sort()).toEqual(many);
  });

  it("are the e2e suite's small VMI, paused at start unless the guests boot, labelled as the benchmark's", () => {
    const vmi = burstVMI("burst-0001", "bench-vmi-burst", false);
    expect(vmi).toEqual({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstance",
      metadata: {
        name: "burst-0001",
        namespace: "bench-vmi-burst",
        labels: { "kubevirt-ts.io/benchmark": "vmi-burst" },
      },
      spec: {
        startStrategy: "Paused",
        domain: {
          devices: { disks: [{ name: "containerdisk", disk: { bus: "virtio" } }] },
          memory: { guest: "96Mi" },
        },
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
      },
    });
    expect(burstVMI("burst-0001", "ns", true).spec).not.toHaveProperty("startStrategy");
  });
});

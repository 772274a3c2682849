import { describe, expect, it } from "vitest";
import type { Interface, Network } from "../../../api/generated/v1.js";
import { planInterfaces } from "./plan.js";

const networks: Network[] = [
  { name: "default", pod: {} },
  { name: "blue", multus: { networkName: "blue-net" } },
  { name: "sriov-net", multus: { networkName: "sriov" } },
];

describe("planning the pod network setup", () => {
  it("names links per interface and skips SR-IOV", () => {
    const interfaces: Interface[] = [
      { name: "default", masquerade: {} },
      { name: "blue", bridge: {} },
      { name: "sriov-net", sriov: {} },
    ];
    const plans = planInterfaces(interfaces, networks);
    expect(
      plans.map(({ binding, podIfaceName, tapName, vmiIfaceIndex }) => ({
        binding,
        podIfaceName,
        tapName,
        vmiIfaceIndex,
      })),
    ).toEqual([
      { binding: "masquerade", podIfaceName: "eth0", tapName: "tap0", vmiIfaceIndex: 0 },
      { binding: "bridge", podIfaceName: "pod16477688c0e", tapName: "tap16477688c0e", vmiIfaceIndex: 1 },
    ]);
  });

  it("takes the primary pod interface name from the VMI status", () => {
    const plans = planInterfaces([{ name: "default", bridge: {} }], networks, [
      { name: "default", podInterfaceName: "ovn-udn1" },
    ]);
    expect(plans[0]?.podIfaceName).toBe("ovn-udn1");
  });

  it.each<[Interface, string]>([
    [
      { name: "default", passtBinding: {} },
      "interface default: the passtBinding binding is not supported yet",
    ],
    [
      { name: "default", binding: { name: "mybinding" } },
      "interface default: the binding binding is not supported yet",
    ],
    [{ name: "default" }, "undefined binding method"],
    [{ name: "nowhere", bridge: {} }, "no network matching with iface nowhere"],
  ])("refuses %j", (iface, message) => {
    expect(() => planInterfaces([iface], networks)).toThrow(message);
  });
});
